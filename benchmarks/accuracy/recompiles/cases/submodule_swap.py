"""The activation is replaced by another type after the first call."""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x))


block = Block()
fast = torch.compile(block)


def main():
    x = torch.randn(4, 8)
    fast(x)
    block.act = nn.GELU()
    fast(x)
