"""A global feature flag toggled by a helper between calls."""
import torch

USE_FAST_GELU = False


@torch.compile
def mlp(x):
    if USE_FAST_GELU:
        return torch.nn.functional.gelu(x, approximate="tanh")
    return torch.nn.functional.gelu(x)


def set_fast(value):
    global USE_FAST_GELU
    USE_FAST_GELU = True


def main():
    x = torch.randn(4, 8)
    mlp(x)
    set_fast(True)
    mlp(x)
