"""A model with dropout, trained then evaluated through the same compiled wrapper."""
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 8)
        self.drop = nn.Dropout(0.2)
        self.out = nn.Linear(8, 2)

    def forward(self, x):
        return self.out(self.drop(self.body(x).relu()))


net = Classifier()
model = torch.compile(net)


def main():
    x = torch.randn(4, 8)
    model(x).sum().backward()
    model.eval()
    model(x)
