"""The same call pattern through a `functools.partial` with dynamic=True: the int is symbolic from
the first call, so nothing recompiles."""
import functools

import torch

dynamic_compile = functools.partial(torch.compile, dynamic=True)


@dynamic_compile
def shift(x, n):
    return x + n


def main():
    x = torch.randn(4)
    for n in range(4):
        shift(x, n)
