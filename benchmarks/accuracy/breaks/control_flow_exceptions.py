"""Exceptions used for control flow and checks inside context managers."""
import torch
from torch import nn


class StopDecoding(Exception):
    pass


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, hidden_states):
        logits = self.proj(hidden_states)
        raise StopDecoding(logits)


class AutocastBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, hidden_states):
        with torch.autocast("cpu", enabled=False):
            assert hidden_states.shape[0] == 4, "expected 4 sequences per micro-batch"
            return self.proj(hidden_states)


decoder = torch.compile(Decoder())
autocast_block = torch.compile(AutocastBlock())
