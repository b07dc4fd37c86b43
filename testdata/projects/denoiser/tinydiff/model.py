"""The denoiser: a timestep embedding, then a stack of residual and attention blocks."""
import math

import torch
from torch import nn

from .blocks import AttentionBlock, ResBlock


def timestep_embedding(timesteps, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
    args = timesteps.float()[:, None] * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class Denoiser(nn.Module):
    def __init__(self, channels=8, time_dim=16):
        super().__init__()
        self.time_dim = time_dim
        self.stem = nn.Conv2d(3, channels, 3, padding=1)
        self.res = nn.ModuleList([ResBlock(channels, time_dim) for _ in range(2)])
        self.attn = nn.ModuleList([AttentionBlock(channels) for _ in range(2)])
        self.out = nn.Conv2d(channels, 3, 3, padding=1)

    def forward(self, x, timesteps):
        temb = timestep_embedding(timesteps, self.time_dim)
        h = self.stem(x)
        for res, attn in zip(self.res, self.attn):
            h = res(h, temb)
            h = attn(h, temb, timesteps)
        return self.out(h)
