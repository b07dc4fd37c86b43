"""BL119 positives: each marked line breaks under real Dynamo (inside the higher-order op)."""
import torch
import torch.utils.checkpoint
from torch import nn
from torch._higher_order_ops.wrap import wrap

ACTIVATIONS = []
STATS = {"blocks": 0}


def counted_block(x):
    STATS["blocks"] += 1  # expect: BL119
    return x.cos()


@torch.compile
def checkpointed_counter(x):
    return torch.utils.checkpoint.checkpoint(counted_block, x, use_reentrant=False)


@torch.compile
def records_activations(x):
    def block(t):
        ACTIVATIONS.append(t.shape[0])  # expect: BL119
        return t.sin()

    return torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)


@torch.compile
def wrapped_logger(x):
    def body(t):
        ACTIVATIONS.append(t.shape[-1])  # expect: BL119
        return t + 1

    return wrap(body, x)


class CheckpointedLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.forward_calls = 0

    def _inner(self, x):
        self.forward_calls += 1
        return self.proj(x)

    def forward(self, x):
        return torch.utils.checkpoint.checkpoint(self._inner, x, use_reentrant=False)  # expect: BL119


layer = torch.compile(CheckpointedLayer())
