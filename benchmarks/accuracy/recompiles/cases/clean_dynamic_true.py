"""Clean: dynamic=True compiles one graph for every batch size."""
import torch


def score(x):
    return x.softmax(-1).amax(-1)


dynamic_score = torch.compile(score, dynamic=True)


def main():
    for batch in (8, 4, 2):
        dynamic_score(torch.randn(batch, 16))
