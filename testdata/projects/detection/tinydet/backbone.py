"""A stack of residual stages with LayerDrop (randomly skipped layers while training)."""
import random

import torch
from torch import nn


class Residual(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        return x + self.conv2(torch.relu(self.conv1(x)))


class Backbone(nn.Module):
    def __init__(self, channels=8, depth=3, layerdrop=0.1):
        super().__init__()
        self.stem = nn.Conv2d(3, channels, 3, stride=2, padding=1)
        self.stages = nn.ModuleList([Residual(channels) for _ in range(depth)])
        self.layerdrop = layerdrop
        self.seed = random.randint(0, 2**16)  # in __init__, never traced

    def forward(self, x):
        x = self.stem(x)
        for stage in self.stages:
            # LayerDrop the way fairseq and older transformers write it: Python's random module.
            if self.training and random.random() < self.layerdrop:  # expect: BL107
                continue
            x = stage(x)
        return x
