"""Clean: a submodule is replaced by one of the same type, and an attribute set to its value."""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.act = nn.ReLU()
        self.alpha = 1.0

    def forward(self, x):
        return self.act(self.fc(x)) * self.alpha


block = Block()
fast = torch.compile(block)


def main():
    x = torch.randn(4, 8)
    fast(x)
    block.act = nn.ReLU()
    block.alpha = 1.0
    fast(x)
