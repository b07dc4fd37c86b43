"""A residual scale on the module changed from outside."""
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
fast = torch.compile(block)


def main():
    x = torch.randn(4, 8)
    fast(x)
    block.alpha = 0.5
    fast(x)
