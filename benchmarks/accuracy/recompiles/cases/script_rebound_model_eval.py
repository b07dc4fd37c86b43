"""A script: `model = torch.compile(model)` in main, validated after each epoch with eval()/train()."""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.ReLU())
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.body(x))


def main():
    model = Net()
    model = torch.compile(model)
    x = torch.randn(4, 8)
    for _ in range(2):
        model.train()
        model(x).sum().backward()
        model.eval()
        model(x)
