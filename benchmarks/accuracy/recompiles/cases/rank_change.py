"""A batched and an unbatched input to the same compiled function."""
import torch


@torch.compile
def center(x):
    return x - x.mean(-1, keepdim=True)


def main():
    center(torch.randn(4, 8))
    center(torch.randn(8))
