"""BL114 negatives: layers built in __init__, weightless modules and functional forms."""
import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.gain = nn.Parameter(torch.ones(8))

    def forward(self, x):
        x = nn.ReLU()(self.proj(x)) * self.gain
        return F.layer_norm(x, (8,))


block = torch.compile(Block())
