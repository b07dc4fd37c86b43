"""Gradient checkpointing with bookkeeping inside the checkpointed block (transformers-style)."""
import torch
import torch.utils.checkpoint
from torch import nn
from torch._higher_order_ops.wrap import wrap

LAYER_STATS = {"recomputed": 0}
ROUTED = []


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 8)
        self.fc2 = nn.Linear(8, 8)
        self.calls = 0

    def _block_forward(self, hidden_states):
        self.calls += 1
        return self.fc2(self.fc1(hidden_states).relu())

    def forward(self, hidden_states):
        return torch.utils.checkpoint.checkpoint(self._block_forward, hidden_states, use_reentrant=False)


def _mlp(hidden_states):
    LAYER_STATS["recomputed"] += 1
    return hidden_states.tanh()


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.gradient_checkpointing = True

    def forward(self, hidden_states):
        if self.gradient_checkpointing:
            hidden_states = torch.utils.checkpoint.checkpoint(_mlp, hidden_states, use_reentrant=False)
        return hidden_states


@torch.compile
def routed(hidden_states):
    def expert(t):
        ROUTED.append(t.shape[0])
        return t * 2

    return wrap(expert, hidden_states)


block = torch.compile(Block())
encoder = torch.compile(Encoder())
