"""Clean: a global float the compiled code reads, changed between calls, under dynamic=True."""
import torch

TEMPERATURE = 1.0


def soften(logits):
    return (logits / TEMPERATURE).softmax(-1)


fast_soften = torch.compile(soften, dynamic=True)


def main():
    global TEMPERATURE
    logits = torch.randn(4, 16)
    fast_soften(logits)
    TEMPERATURE = 0.7
    fast_soften(logits)
