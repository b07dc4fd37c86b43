"""Convolutional blocks; SpecAugment masks with torch RNG only."""
import torch
from torch import nn


class CausalConv(nn.Conv1d):
    def __init__(self, channels, kernel):
        super().__init__(channels, channels, kernel, padding=kernel - 1)

    def forward(self, x):
        return super().forward(x)[..., : x.shape[-1]]


class ConvBlock(nn.Module):
    def __init__(self, channels, kernel=3):
        super().__init__()
        self.conv = CausalConv(channels, kernel)
        self.norm = nn.GroupNorm(1, channels)

    def forward(self, x):
        return x + torch.relu(self.norm(self.conv(x)))


class SpecAugment(nn.Module):
    """Masks random time steps while training; torch.rand is traced, Python's random is not."""

    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        keep = torch.rand(x.shape[0], 1, x.shape[-1]) >= self.p
        return x * keep
