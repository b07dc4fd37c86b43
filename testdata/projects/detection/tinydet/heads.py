import torch
from torch import nn


class DetectionHead(nn.Module):
    def __init__(self, channels, classes):
        super().__init__()
        self.cls = nn.Conv2d(channels, classes, 1)
        self.box = nn.Conv2d(channels, 4, 1)

    def forward(self, features):
        logits = self.cls(features).flatten(2).transpose(1, 2)
        boxes = self.box(features).flatten(2).transpose(1, 2).sigmoid()
        return logits, boxes
