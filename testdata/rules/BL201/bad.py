"""BL201 positives: each marked line sits in a function that recompiles on every call."""
import torch
from torch import nn

STEP = 0
SEEN = []


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1  # expect: BL201
        return x * 2


class Recorder(nn.Module):
    def __init__(self):
        super().__init__()
        self.history = []

    def forward(self, x):
        self.history.append(1)  # expect: BL201
        return x * 2


@torch.compile
def global_step(x):
    global STEP
    STEP = STEP + 1  # expect: BL201
    return x + 1


@torch.compile
def remember(x):
    SEEN.append(1)  # expect: BL201
    return x + 1


counter = torch.compile(Counter())
recorder = torch.compile(Recorder())
