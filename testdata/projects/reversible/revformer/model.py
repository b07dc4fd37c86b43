"""RevFormer: a frame encoder, positions, and a stack of reversible blocks."""
import torch
from torch import nn

from .frontend import FrameEncoder
from .positions import AxialPositions, LearnedPositions, clamp_length
from .reversible import ReversibleBlock, ReversibleFunction


class RevFormer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.frontend = FrameEncoder(config)
        self.positions = (
            AxialPositions(config) if config.axial_positions else LearnedPositions(config)
        )
        self.blocks = nn.ModuleList([ReversibleBlock(config, i) for i in range(config.depth)])
        self.norm = nn.LayerNorm(2 * config.hidden)

    def forward(self, frames):
        steps = clamp_length(frames.shape[1], self.config.max_positions)
        hidden_states = self.frontend(frames[:, :steps])
        position_ids = torch.arange(steps, device=frames.device).unsqueeze(0)
        hidden_states = hidden_states + self.positions(position_ids)
        head_mask = torch.ones(self.config.depth, 1, 1, 1)
        hidden_states = torch.cat([hidden_states, hidden_states], dim=-1)
        hidden_states = ReversibleFunction.apply(hidden_states, self.blocks, head_mask)
        return self.norm(hidden_states)
