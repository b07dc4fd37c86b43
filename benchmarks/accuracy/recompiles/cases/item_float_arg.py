"""A loss value read with `.item()` is passed as a Python float each step."""
import torch


@torch.compile
def clip(x, limit):
    return x.clamp(-limit, limit)


def main():
    loss = torch.tensor(1.0)
    for _ in range(4):
        clip(torch.randn(8), loss.item())
        loss = loss * 0.5
