"""A residual scale on a dynamic=False module changed twice from outside: one compile per value."""
import torch
from torch import nn


class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.alpha = 1.0

    def forward(self, x):
        return x + self.alpha * self.fc(x)


block = Residual()
fast = torch.compile(block, dynamic=False)


def main():
    x = torch.randn(4, 8)
    fast(x)
    block.alpha = 0.5
    fast(x)
    block.alpha = 0.25
    fast(x)
