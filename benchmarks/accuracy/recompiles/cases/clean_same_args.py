"""Clean: the same Python arguments every call, only tensor values change."""
import torch


@torch.compile
def step(x, steps: int, training: bool):
    for _ in range(steps):
        x = x * 0.5
    return x.relu() if training else x


def main():
    for _ in range(4):
        step(torch.randn(4, 4), 2, True)
