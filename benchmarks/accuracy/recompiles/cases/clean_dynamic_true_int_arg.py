"""Clean: an int argument that differs between calls, under dynamic=True (a symbol from the first call)."""
import torch


def smooth(x, steps: int):
    return x * 0.5 + steps


fast_smooth = torch.compile(smooth, dynamic=True)


def main():
    x = torch.randn(4, 4)
    for steps in range(1, 6):
        fast_smooth(x, steps)
