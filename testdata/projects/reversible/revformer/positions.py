"""Position embeddings: axial (two small tables) or one learned table."""
import torch
from torch import nn


class AxialPositions(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.shape = config.axial_shape
        half = config.hidden // 2
        self.rows = nn.Parameter(torch.randn(self.shape[0], 1, half) * 0.02)
        self.cols = nn.Parameter(torch.randn(1, self.shape[1], half) * 0.02)

    def forward(self, position_ids):
        rows, cols = self.shape
        table = torch.cat([self.rows.expand(rows, cols, -1), self.cols.expand(rows, cols, -1)], dim=-1)
        if self.training:
            return rescale(table.reshape(rows * cols, -1)[position_ids], 0.5)
        # Only the rows that the longest position reaches.
        needed_rows = position_ids.max().item() // cols + 1  # expect: BL101
        return table[:needed_rows].reshape(needed_rows * cols, -1)[position_ids]


class LearnedPositions(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.table = nn.Embedding(config.max_positions, config.hidden)

    def forward(self, position_ids):
        return rescale(self.table(position_ids), 1.0)


def rescale(embeddings, factor):
    # Every caller passes a Python float: a guard on a constant, not a tensor test.
    if factor == 1.0:
        return embeddings
    return torch.mul(embeddings, factor)


def clamp_length(steps, limit):
    # Called with a shape entry: a Python comparison, no break.
    if steps > limit:
        return limit
    return steps
