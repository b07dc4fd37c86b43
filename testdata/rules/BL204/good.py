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


def _evaluate(x):
    scorer = torch.compile(Net())
    with torch.no_grad():
        return scorer(x)


def _train(x):
    scorer = Net()  # another `scorer`, never compiled: its call with grad compiles nothing
    scorer(x).sum().backward()


def scenario_two_functions_two_scorers():
    x = torch.randn(8, 8)
    _evaluate(x)
    _train(x)
