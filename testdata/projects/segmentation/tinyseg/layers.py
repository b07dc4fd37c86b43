"""Building blocks of SegNet."""
import torch
from torch import nn
import torch.nn.functional as F

from .utils import safe_normalize


class ConvBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.norm = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.relu(self.norm(self.conv(x)))


class MaskedPool(nn.Module):
    """Average over the masked pixels, or over all of them when the mask is empty."""

    def forward(self, x, mask):
        if mask.any():  # expect: BL102
            weights = mask.float().unsqueeze(1)
            return (x * weights).sum((2, 3)) / weights.sum((2, 3)).clamp(min=1.0)
        return x.mean((2, 3))


class Head(nn.Module):
    def __init__(self, cin, classes, normalize=True):
        super().__init__()
        self.proj = nn.Conv2d(cin, classes, 1)
        self.normalize = normalize

    def forward(self, x):
        if self.normalize:  # a Python flag set in __init__: no break
            x = safe_normalize(x)
        return self.proj(x)
