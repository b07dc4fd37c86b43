"""A container that runs the augmentations it is given, one after the other."""
from torch import nn


class Pipeline(nn.Module):
    def __init__(self, first, second):
        super().__init__()
        self.first = first
        self.second = second

    def forward(self, x):
        return self.second(self.first(x))
