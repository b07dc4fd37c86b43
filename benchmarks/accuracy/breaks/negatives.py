"""Look-alikes that Dynamo traces without a break (or only under a condition these calls do not meet)."""
import os
import random

import torch
import torch.utils.checkpoint
from torch import nn


class HalfOverflowGuard(nn.Module):
    """Only float16 inputs evaluate the tensor test; these calls are float32."""

    def forward(self, hidden_states):
        if hidden_states.dtype == torch.float16 and not torch.isfinite(hidden_states).all():
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
        return hidden_states * 2


class LayerDropEncoder(nn.Module):
    def __init__(self, layerdrop=0.1):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(2)])
        self.layerdrop = layerdrop

    def forward(self, hidden_states):
        for layer in self.layers:
            if self.training:
                dropout_probability = torch.rand([])
                if dropout_probability < self.layerdrop:
                    continue
            hidden_states = layer(hidden_states)
        return hidden_states


@torch.compile
def maybe_normalize(x, normalize):
    if normalize:
        return x / x.norm()
    return x


def scenario_constant_flags():
    x = torch.randn(8, 8)
    maybe_normalize(x, True)
    maybe_normalize(x * 2, normalize=True)


@torch.compile
def keep_tensors(x):
    same = (x == x).all()
    close = torch.isclose(x, x * 1.0).all()
    smallest = min(x[0].norm(), x[1].norm())
    return torch.where(same & close, x * smallest, x)


@torch.compile
def sort_by_shape(x):
    parts = [x[:2], x[2:]]
    parts = sorted(parts, key=lambda part: part.shape[0])
    return torch.cat(parts)


@torch.compile
def shape_bounds(x):
    half = x.shape[0] // 2
    return x[slice(0, half)] * x.untyped_storage().size()


@torch.compile
def reads_environment(x):
    mode = os.environ.get("BREAKLINT_CORPUS_MODE", "fast")
    return x * 2 if mode == "fast" else x


@torch.compile
def traced_random(x):
    return x * random.randint(1, 1)


def _pure_block(hidden_states):
    return hidden_states.sin()


@torch.compile
def checkpointed(hidden_states):
    return torch.utils.checkpoint.checkpoint(_pure_block, hidden_states, use_reentrant=False)


@torch.compile
def caught(x):
    try:
        raise KeyError("missing")
    except KeyError:
        return x * 2


class QuietKey:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, QuietKey) and self.name == other.name


A, B = QuietKey("a"), QuietKey("a")


@torch.compile
def compares_keys(x):
    return x * 2 if A == B else x


@torch.compile
def zipped_inside(x):
    for scale in zip([1.0, 2.0]):
        x = x * scale[0]
    return x


@torch.compile
def formats_shape(x):
    text = f"{tuple(x.shape)}"
    return x * len(text)


guard = torch.compile(HalfOverflowGuard())
encoder = torch.compile(LayerDropEncoder().eval())
CALLS = {"maybe_normalize": [(torch.randn(8, 8), True) for _ in range(3)]}
