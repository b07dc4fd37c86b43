"""ASRModel: SpecAugment, a Sequential of ConvBlocks, a CTC head; forward trims the padding."""
import torch
from torch import nn

from .blocks import ConvBlock, SpecAugment
from .losses import class_weights, ctc_loss


class ASRModel(nn.Module):
    def __init__(self, features=17, channels=16, classes=6, depth=2):
        super().__init__()
        self.classes = classes
        self.augment = SpecAugment()
        self.inp = nn.Conv1d(features, channels, 1)
        self.encoder = nn.Sequential(*[ConvBlock(channels) for _ in range(depth)])
        self.head = nn.Linear(channels, classes)

    def forward(self, feats, lengths, targets=None, target_lengths=None):
        # Trim the batch to its longest utterance: a Python int from a tensor.
        longest = int(lengths.max())  # expect: BL101
        x = self.augment(feats[:, :longest].transpose(1, 2))
        x = self.encoder(self.inp(x))
        log_probs = self.head(x.transpose(1, 2)).log_softmax(-1)
        if targets is None:
            return log_probs
        weights = class_weights(targets, self.classes)
        return ctc_loss(log_probs, targets, lengths.clamp(max=longest), target_lengths) * weights.mean()
