"""TinyW2VModel: a feature projection and one of two encoders, chosen by the configuration."""
import torch
from torch import nn

from .configuration import TinyW2VConfig
from .masks import TimeMasking, additive_mask, block_mask


class EncoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = nn.MultiheadAttention(config.hidden_size, 2, batch_first=True)
        self.feed_forward = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, hidden_states, attention_mask=None):
        attended, _ = self.attention(hidden_states, hidden_states, hidden_states, need_weights=False)
        return hidden_states + self.feed_forward(attended)


class Encoder(nn.Module):
    """Post-norm: the encoder the default configuration builds."""

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.time_masking = TimeMasking(config)
        self.layer_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.layers = nn.ModuleList([EncoderLayer(config) for _ in range(config.num_layers)])

    def _update_mask(self, attention_mask, hidden_states):
        if self.config.attn_implementation == "sdpa":
            # SDPA takes no mask at all when nothing is padded: a Python `if` on a tensor.
            if attention_mask.all():  # possible: BL102
                return None
            return attention_mask.bool()
        elif self.config.attn_implementation == "block_sparse":
            return block_mask(attention_mask)
        return additive_mask(attention_mask, hidden_states.dtype)

    def forward(self, hidden_states, attention_mask):
        attention_mask = self._update_mask(attention_mask, hidden_states)
        hidden_states = self.layer_norm(self.time_masking(hidden_states))
        # Skip the stack for silent input: a Python `if` on a tensor, in the encoder that is built.
        if hidden_states.abs().amax() == 0:  # expect: BL102
            return hidden_states
        for layer in self.layers:
            hidden_states = layer(hidden_states, attention_mask)
        return hidden_states


class EncoderStableLayerNorm(nn.Module):
    """Pre-norm: built only with `do_stable_layer_norm=True`."""

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.layer_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.layers = nn.ModuleList([EncoderLayer(config) for _ in range(config.num_layers)])

    def forward(self, hidden_states, attention_mask):
        if hidden_states.isnan().any():  # possible: BL102
            hidden_states = torch.nan_to_num(hidden_states)
        for layer in self.layers:
            hidden_states = layer(hidden_states, attention_mask)
        return self.layer_norm(hidden_states)


class Adapter(nn.Module):
    """Downsamples the output in time; built only with `add_adapter=True`."""

    def __init__(self, config):
        super().__init__()
        self.proj = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, hidden_states):
        steps = int(hidden_states.shape[1] // 2)
        return self.proj(hidden_states[:, : steps * 2 : 2]) * hidden_states.std().item()  # possible: BL101


class TinyW2VModel(nn.Module):
    def __init__(self, config: TinyW2VConfig):
        super().__init__()
        self.config = config
        self.feature_projection = nn.Linear(8, config.hidden_size)
        if config.do_stable_layer_norm:
            self.encoder = EncoderStableLayerNorm(config)
        else:
            self.encoder = Encoder(config)
        self.adapter = Adapter(config) if config.add_adapter else None

    def forward(self, input_values, attention_mask=None):
        hidden_states = self.feature_projection(input_values)
        if attention_mask is None:
            attention_mask = torch.ones(hidden_states.shape[:2])
        hidden_states = self.encoder(hidden_states, attention_mask)
        if self.adapter is not None:
            hidden_states = self.adapter(hidden_states)
        return hidden_states
