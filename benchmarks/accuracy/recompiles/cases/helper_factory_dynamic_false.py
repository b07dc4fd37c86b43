"""A step compiled through the script's own factory of wrappers with dynamic=False, called with a
step count that changes: each new count is a new specialisation."""
import torch


def compile_with(**options):
    def wrap(fn):
        return torch.compile(fn, **options)
    return wrap


@compile_with(dynamic=False)
def shift(x, n):
    return x + n


def main():
    x = torch.randn(4)
    for n in range(4):
        shift(x, n)
