"""BL203 positives: each marked line sits in a function that recompiles on every new tensor."""
import torch
from torch import nn

_SEEN = {}


@torch.compile
def memoised(x: torch.Tensor):
    key = id(x)  # expect: BL203
    return x * 2, key


class Cached(nn.Module):
    def forward(self, x):
        if id(x) in _SEEN:  # expect: BL203
            return x
        return x + 1


cached = torch.compile(Cached())
