"""dynamic=False written as a call, fed several batch sizes."""
import torch


def score(x):
    return x.softmax(-1).amax(-1)


static_score = torch.compile(score, dynamic=False)


def main():
    for batch in (8, 4, 2, 1):
        static_score(torch.randn(batch, 16))
