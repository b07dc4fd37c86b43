"""Clean: eval() on a model that nothing in it reads `training` from."""
import torch
from torch import nn


class Linear2(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 8)

    def forward(self, x):
        return self.b(self.a(x).relu())


net = Linear2()
model = torch.compile(net)


def main():
    x = torch.randn(4, 8)
    model(x)
    net.eval()
    model(x)
