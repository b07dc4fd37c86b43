"""A count read from a tensor's data (`int(mask.sum())`) is passed as a Python int each step."""
import torch


@torch.compile
def scale_by_count(x, n):
    return x / n


def main():
    for step in range(4):
        mask = torch.arange(8) < step + 2
        n = int(mask.sum())
        scale_by_count(torch.randn(8), n)
