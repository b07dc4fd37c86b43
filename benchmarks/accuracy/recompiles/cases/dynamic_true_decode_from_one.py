"""A decode loop under dynamic=True whose prefix starts at one token: size 1 is specialised anyway."""
import torch


def next_token(prefix):
    return prefix.softmax(-1).argmax(-1)


fast_next = torch.compile(next_token, dynamic=True)


def main():
    logits = torch.randn(2, 32)
    for t in range(1, 10):
        fast_next(logits[:, :t])
