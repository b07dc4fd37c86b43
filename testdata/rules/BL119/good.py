"""BL119 negatives: pure bodies, with the bookkeeping after the higher-order op."""
import torch
import torch.utils.checkpoint
from torch import nn

ACTIVATIONS = []


def block(x):
    return x.cos()


@torch.compile
def checkpointed(x):
    return torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)


class CheckpointedLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def _inner(self, x):
        scale = 2.0  # a local: not outer state
        return self.proj(x) * scale

    def forward(self, x):
        return torch.utils.checkpoint.checkpoint(self._inner, x, use_reentrant=False)


layer = torch.compile(CheckpointedLayer())
