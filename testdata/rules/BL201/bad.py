"""BL201 positives: each marked line sits in a function that recompiles (on every call, or when a key is added)."""
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


class BiasCache(nn.Module):
    """timm's `attention_bias_cache` pattern: a dict filled by key recompiles once (when the key
    is added), not on every call; the message says so."""

    def __init__(self):
        super().__init__()
        self.cache = {}

    def forward(self, x):
        key = str(x.device)
        if key not in self.cache:
            self.cache[key] = x.sum()  # expect: BL201
        return x * self.cache[key]


bias_cache = torch.compile(BiasCache())
