"""An int argument (the number of steps) that differs between calls."""
import torch


def smooth(x, steps: int):
    for _ in range(steps):
        x = x * 0.5 + 0.5
    return x


fast_smooth = torch.compile(smooth)


def main():
    x = torch.randn(4, 4)
    fast_smooth(x, 2)
    fast_smooth(x, 4)
