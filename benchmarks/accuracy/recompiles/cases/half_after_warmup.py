"""The model is cast to half after a warm-up call."""
import torch
from torch import nn


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(x).relu()


net = Mlp()
model = torch.compile(net)


def main():
    model(torch.randn(4, 8))
    net.half()
    model(torch.randn(4, 8).half())
