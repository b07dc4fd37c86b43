"""BL202 negatives: the same layers inlined into one compiled model, or equal across instances."""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim, layer_idx):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.layer_idx = layer_idx
        self.dim = dim

    def forward(self, x):
        return self.proj(x) * (1.0 / (self.layer_idx + 1)) / self.dim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(8, i) for i in range(4)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


net = torch.compile(Net())
same_width = [torch.compile(Block(8, layer_idx=0)) for _ in range(3)]


def scenario_whole_model():
    net(torch.randn(8, 8))
    net(torch.randn(8, 8))


def scenario_equal_layers():
    for block in same_width:
        block(torch.randn(8, 8))
