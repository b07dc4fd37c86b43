"""BL114 positives: each marked line must graph-break under real Dynamo."""
import torch
from torch import nn


@torch.compile
def builds_layer(x):
    layer = nn.Linear(8, 8)  # expect: BL114
    return layer(x)


@torch.compile
def builds_parameter(x):
    gain = nn.Parameter(torch.ones(8))  # expect: BL114
    return x * gain


class LazyNorm(nn.Module):
    def forward(self, x):
        norm = nn.LayerNorm(x.shape[-1])  # expect: BL114
        return norm(x)


lazy_norm = torch.compile(LazyNorm())
