"""A `functools.partial` of torch.compile with dynamic=False, applied to a function called with a
changing Python int."""
import functools

import torch

static_compile = functools.partial(torch.compile, dynamic=False)


def shift(x, n):
    return x + n


fast_shift = static_compile(shift)


def main():
    x = torch.randn(4)
    for n in range(4):
        fast_shift(x, n)
