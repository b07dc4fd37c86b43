"""A backbone weight is frozen after the first steps."""
import torch
from torch import nn


class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(8, 8)
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        return self.head(self.backbone(x).relu())


tower = Tower()
compiled = torch.compile(tower)


def main():
    x = torch.randn(4, 8)
    compiled(x).sum().backward()
    tower.backbone.weight.requires_grad_(False)
    compiled(x).sum().backward()
