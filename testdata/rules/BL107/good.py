"""BL107 negatives: RNG and clocks that Dynamo traces, or that run outside the region."""
import contextvars
import os
import random
import time

import numpy as np
import torch
from torch import nn


@torch.compile
def torch_noise(x):
    return x + 0.1 * torch.randn_like(x) * torch.rand(())


@torch.compile
def traced_python_random(x):
    # random.randint / random.uniform are traced in 2.13 (no break); only other draws break.
    return x * random.randint(1, 1) * random.uniform(1.0, 1.0)


@torch.compile
def numpy_array_draw(x):
    return x + torch.from_numpy(np.random.rand(8, 8).astype("float32"))


@torch.compile
def reads_environment(x):
    flag = os.environ.get("BREAKLINT_FLAG", "")
    return x + len(flag)


def train_step(x):
    start = time.perf_counter()
    y = torch_noise(x)
    return y, time.perf_counter() - start


@torch.compile
def torch_span_starts(x):
    starts = torch.randperm(6)[:2]
    return x + starts.sum() + torch.from_numpy(np.random.randint(0, 6, size=2)).sum()


class HashingConfig:
    """A Reformer-style configuration: `hash_seed` is for tests only, None for training."""

    def __init__(self, hidden_size=8, num_layers=2, num_buckets=4, hash_seed=None):
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.num_buckets = num_buckets
        self.hash_seed = hash_seed


class HashedSelfAttention(nn.Module):
    def __init__(self, config, layer_idx=None):
        super().__init__()
        self.num_buckets = config.num_buckets
        self.hash_seed = config.hash_seed
        self.layer_idx = layer_idx
        self.query_key = nn.Linear(config.hidden_size, config.hidden_size, bias=False)

    def _hash_vectors(self, vectors):
        if self.hash_seed is not None:
            # for determinism: only a configuration that sets `hash_seed` reseeds in the region
            torch.manual_seed(self.hash_seed)  # possible: BL107
        rotations = torch.randn(vectors.shape[-1], self.num_buckets // 2, dtype=vectors.dtype)
        rotated = vectors @ rotations
        return torch.cat([rotated, -rotated], dim=-1).argmax(dim=-1)

    def forward(self, hidden_states):
        query_key = self.query_key(hidden_states)
        buckets = self._hash_vectors(query_key.detach())
        return query_key * (1 + buckets.unsqueeze(-1).to(query_key.dtype))


class HashedAttentionLayer(nn.Module):
    def __init__(self, config, layer_id=0):
        super().__init__()
        self.attention = HashedSelfAttention(config, layer_idx=layer_id)
        self.norm = nn.LayerNorm(config.hidden_size)

    def forward(self, hidden_states):
        return self.norm(hidden_states + self.attention(hidden_states))


def run_layers(hidden_states, layers):
    for layer in layers:
        hidden_states = layer(hidden_states)
    return hidden_states


class HashedEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.layers = nn.ModuleList([HashedAttentionLayer(config, i) for i in range(config.num_layers)])

    def forward(self, hidden_states):
        return run_layers(hidden_states, self.layers)


class HashedModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.encoder = HashedEncoder(config)

    def forward(self, hidden_states):
        return self.encoder(hidden_states)


hashed = torch.compile(HashedModel(HashingConfig()))


import threading  # noqa: E402
import unittest  # noqa: E402

_CACHE_LOCK = threading.Lock()


@torch.compile
def reads_setting(x):
    mode = os.environ.get("BREAKLINT_MODE", "fast")
    return x * 2 if mode == "fast" else x


def locked_outside(x):
    with _CACHE_LOCK:  # not compiled
        return x * 2


class ShapeTest(unittest.TestCase):
    def check(self, x):
        self.assertEqual(x.shape[-1], 8)  # not compiled


_RNG = random.Random(0)


@torch.compile
def rng_traced_draws(x):
    # A `random.Random` instance's random/randint/randrange/uniform are traced into the graph.
    return x * _RNG.random() * _RNG.randint(1, 1) * _RNG.randrange(1, 2) * _RNG.uniform(1.0, 1.0)


class ReseededNoise(nn.Module):
    def __init__(self):
        super().__init__()
        self.rng = random.Random(0)

    def forward(self, x):
        self.rng.seed(1)  # the state methods are traced too
        return x + self.rng.random()


reseeded_noise = torch.compile(ReseededNoise())


_request = contextvars.ContextVar("request", default=0)


@torch.compile
def scaled_by(x, scale=1):
    return x * scale


def serve(x):
    # The context variable is read outside the compiled function and passed in.
    return scaled_by(x, _request.get())
