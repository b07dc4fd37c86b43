"""BL204 negatives: evaluation runs the uncompiled module."""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        return self.proj(x).relu()


net = Net()
model = torch.compile(net)


def scenario_eager_evaluation():
    x = torch.randn(8, 8)
    model(x).sum().backward()
    with torch.no_grad():
        net(x)  # the same weights, eagerly: no second compile
