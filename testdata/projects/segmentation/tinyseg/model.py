"""SegNet: an encoder of ConvBlocks (a ModuleList), a pooled classifier and a dense head."""
import torch
from torch import nn
import torch.nn.functional as F

from .layers import ConvBlock, Head, MaskedPool
from . import utils


class SegNet(nn.Module):
    def __init__(self, channels=(3, 8, 16), classes=4):
        super().__init__()
        self.blocks = nn.ModuleList(ConvBlock(a, b) for a, b in zip(channels[:-1], channels[1:]))
        self.pool = MaskedPool()
        self.classifier = nn.Linear(channels[-1], classes)
        self.head = Head(channels[-1], classes)
        self.last_loss = 0.0

    def forward(self, image, mask, target=None):
        x = utils.describe("input", image)
        for block in self.blocks:
            x = block(x)
        logits = self.head(x)
        pooled = self.pool(x, mask)
        scores = self.classifier(pooled)
        if target is not None:  # the caller passes a target or not: a Python test, no break
            loss = F.cross_entropy(logits, target)
            self.last_loss = loss.item()  # expect: BL101
            return scores, loss
        coverage = utils.foreground_fraction(mask)
        return scores, logits * coverage
