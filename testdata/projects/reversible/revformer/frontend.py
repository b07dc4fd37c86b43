"""The feature encoder: audio frames in, hidden states out."""
import torch
from torch import nn


class FrameEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, kernel_size=3, padding=1)
        self.proj = nn.Linear(2 * config.frame_features, config.hidden)
        self._requires_grad = True

    def forward(self, frames):
        hidden_states = frames[:, None]
        # Let gradient checkpointing see an input that requires grad.
        if self._requires_grad and self.training:
            hidden_states.requires_grad = True  # expect: BL113
        hidden_states = torch.relu(self.conv(hidden_states))
        batch, channels, steps, features = hidden_states.shape
        return self.proj(hidden_states.permute(0, 2, 1, 3).reshape(batch, steps, channels * features))
