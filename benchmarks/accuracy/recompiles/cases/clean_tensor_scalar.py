"""Clean: the changing scalar is passed as a tensor."""
import torch


@torch.compile
def scale(x, factor):
    return x * factor


def main():
    x = torch.randn(4)
    for value in (0.5, 0.7, 0.9):
        scale(x, torch.tensor(value))
