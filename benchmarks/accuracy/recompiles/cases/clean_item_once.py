"""Clean: a value read from a tensor is passed once (a single call: nothing to recompile)."""
import torch


@torch.compile
def scale_by_count(x, n):
    return x / n


def main():
    mask = torch.arange(8) < 5
    scale_by_count(torch.randn(8), int(mask.sum()))
