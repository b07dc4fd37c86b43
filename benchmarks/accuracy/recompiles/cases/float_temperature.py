"""A float temperature annealed between calls."""
import torch


@torch.compile
def sample(logits, temperature: float):
    return (logits / temperature).softmax(-1)


def main():
    logits = torch.randn(4, 10)
    sample(logits, 1.0)
    sample(logits, 0.7)
    sample(logits, 0.5)
