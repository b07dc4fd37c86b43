import torch
from torch import nn

from .indexing import global_attention_indices, local_window, padded_lengths


class GlobalLocalAttention(nn.Module):
    """Self-attention whose first tokens attend globally (Longformer-style): the counts come
    back from the helpers in indexing.py as tensors, the window as Python ints."""

    def __init__(self, dim):
        super().__init__()
        self.query = nn.Linear(dim, dim)
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)

    def forward(self, hidden_states, attention_mask, global_attention_mask):
        max_num_global_attn_indices, _ = global_attention_indices(global_attention_mask)
        max_length, lengths = padded_lengths(attention_mask)
        window_start, window_width = local_window(hidden_states)
        query = self.query(hidden_states)
        key = self.key(hidden_states)
        attn_scores = torch.bmm(query, key.transpose(1, 2)) / query.shape[-1] ** 0.5
        assert list(attn_scores.size()) == [  # expect: BL102
            hidden_states.shape[0],
            max_length,
            max_length,
        ], f"attn_scores should be of size ({hidden_states.shape[0]}, {max_length}, {max_length})"
        attn_probs = attn_scores.softmax(dim=-1)
        context = torch.bmm(attn_probs, self.value(hidden_states))
        window = context.narrow(1, window_start, window_width)
        local_context = self._without_global(context, max_num_global_attn_indices)
        return local_context.mean(dim=1) + window.mean(dim=1) * (lengths.float().mean() / max_length)

    @staticmethod
    def _without_global(context, max_num_global_attn_indices):
        return context.narrow(  # expect: BL101
            1, max_num_global_attn_indices, context.size(1) - max_num_global_attn_indices
        )
