"""A list of tensors whose length changes between calls."""
import torch


@torch.compile
def merge(parts):
    return torch.cat(parts).sum()


def main():
    x = torch.randn(4)
    merge([x, x])
    merge([x, x, x])
