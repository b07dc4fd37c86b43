"""An int argument that differs between calls, under dynamic=False: one compile per value."""
import torch


def shift(x, offset: int):
    return x + offset


static_shift = torch.compile(shift, dynamic=False)


def main():
    x = torch.randn(4, 4)
    static_shift(x, 1)
    static_shift(x, 2)
    static_shift(x, 3)
