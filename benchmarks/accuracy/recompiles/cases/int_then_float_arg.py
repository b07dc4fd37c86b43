"""A scale passed as ints, then as a float: the int turns dynamic, the float compiles a graph of its own."""
import torch


def scale(x, factor):
    return x * factor


fast_scale = torch.compile(scale)


def main():
    x = torch.randn(4, 4)
    fast_scale(x, 1)
    fast_scale(x, 2)
    fast_scale(x, 0.5)
