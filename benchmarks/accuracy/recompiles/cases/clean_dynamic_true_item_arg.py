"""Clean: a number read from a tensor's data each step, passed to a dynamic=True callable."""
import torch


def clip(x, limit):
    return x.clamp(-limit, limit)


fast_clip = torch.compile(clip, dynamic=True)


def main():
    x = torch.randn(4, 4)
    loss = torch.tensor(1.0)
    for _ in range(4):
        fast_clip(x, loss.item())
        loss = loss * 0.5
