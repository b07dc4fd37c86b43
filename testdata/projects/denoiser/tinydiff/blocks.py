"""Residual blocks of the denoiser, conditioned on the diffusion timestep."""
import torch
from torch import nn
import torch.nn.functional as F


class ResBlock(nn.Module):
    def __init__(self, channels, time_dim):
        super().__init__()
        self.norm = nn.GroupNorm(4, channels)
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.time = nn.Linear(time_dim, channels)

    def forward(self, x, temb):
        h = self.conv(F.silu(self.norm(x)))
        return x + h + self.time(temb)[:, :, None, None]


class AttentionBlock(nn.Module):
    """Self-attention over pixels, skipped for the noisiest timesteps (a common speed trick)."""

    def __init__(self, channels, skip_above=900):
        super().__init__()
        self.norm = nn.GroupNorm(4, channels)
        self.qkv = nn.Conv2d(channels, 3 * channels, 1)
        self.skip_above = skip_above

    def forward(self, x, temb, timesteps):
        # Reached from Denoiser.forward's loop over its blocks (model.py): this break makes
        # Dynamo give up on that whole frame, not only on this block.
        if timesteps.min().item() > self.skip_above:  # expect: BL101
            return x
        b, c, hgt, wid = x.shape
        q, k, v = self.qkv(self.norm(x)).flatten(2).chunk(3, dim=1)
        out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
        return x + out.transpose(1, 2).reshape(b, c, hgt, wid)
