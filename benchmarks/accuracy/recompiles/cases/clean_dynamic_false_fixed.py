"""Clean: dynamic=False on a function that is always called with one shape."""
import torch


def score(x):
    return x.softmax(-1)


static_score = torch.compile(score, dynamic=False)


def main():
    for _ in range(4):
        static_score(torch.randn(8, 16))
