"""BL107 positives: each marked line must graph-break under real Dynamo."""
import contextvars
import random
import time
import uuid
from datetime import datetime

import numpy as np
import torch
from torch import nn


@torch.compile
def timed(x):
    start = time.perf_counter()  # expect: BL107
    y = x @ x
    return y, start


@torch.compile
def python_random_scale(x):
    return x * random.random()  # expect: BL107


@torch.compile
def shuffled_order(x):
    order = [0, 1, 2, 3]
    random.shuffle(order)  # expect: BL107
    return x[order]


@torch.compile
def reseeds(x):
    torch.manual_seed(0)  # expect: BL107
    return x + torch.randn(8, 8)


@torch.compile
def numpy_scalar_noise(x):
    return x + np.random.uniform(-0.1, 0.1)  # expect: BL107


@torch.compile
def stamps(x):
    run_id = uuid.uuid4()  # expect: BL107
    when = datetime.now()  # expect: BL107
    return x + 1


class Dropout(nn.Module):
    def forward(self, x):
        if self.training and random.choice([True, False]):  # expect: BL107
            return x * 0.5
        return x


dropout = torch.compile(Dropout())


@torch.compile
def masked_span_starts(x):
    # wav2vec2-style SpecAugment: torch._numpy's choice tests its probabilities in Python.
    starts = np.random.choice(np.arange(6), 2, replace=False)  # expect: BL107
    return x + torch.from_numpy(starts).sum()


class NoiseConfig:
    def __init__(self, hidden_size=8, noise_seed=None):
        self.hidden_size = hidden_size
        self.noise_seed = noise_seed


class SeededNoise(nn.Module):
    """`noise_seed` comes from the configuration, but `set_seed` can change it after construction:
    a module attribute, not a setting, so the default configuration does not decide the test."""

    def __init__(self, config):
        super().__init__()
        self.noise_seed = config.noise_seed

    def set_seed(self, seed):
        self.noise_seed = seed

    def forward(self, x):
        if self.noise_seed is not None:
            torch.manual_seed(self.noise_seed)  # expect: BL107
        return x + 0.1 * torch.randn_like(x)


noise = SeededNoise(NoiseConfig())
noise.set_seed(0)  # a reproducible run, after the model is built
seeded_noise = torch.compile(noise)


import os  # noqa: E402
import threading  # noqa: E402
import unittest  # noqa: E402

_CACHE_LOCK = threading.Lock()
_CHECKS = unittest.TestCase()


@torch.compile
def guarded_by_lock(x):
    with _CACHE_LOCK:  # expect: BL107
        return x * 2


@torch.compile
def checked_shape(x):
    _CHECKS.assertEqual(x.shape[-1], 8)  # expect: BL107
    return x * 2


@torch.compile
def exports_setting(x):
    os.environ["BREAKLINT_MODE"] = "fast"  # expect: BL107
    return x * 2


@torch.compile
def process_id(x):
    return x * (os.getpid() % 2 + 1)  # expect: BL107


class UpCat(nn.Module):
    """MONAI's BasicUNet decoder: TorchScript's `torch.jit.isinstance` is on Dynamo's skip list."""

    def forward(self, x, x_e=None):
        x = x * 2
        if x_e is not None and torch.jit.isinstance(x_e, torch.Tensor):  # expect: BL107
            x = x + x_e
        return x


up_cat = torch.compile(UpCat())
CALLS = {"up_cat": [(torch.randn(8, 8), torch.randn(8, 8)) for _ in range(3)]}


# A `random.Random(seed)` is Dynamo's RandomVariable: it traces only random/randint/randrange/
# uniform (and the state methods); any other method is an unsupported method call.
_RNG = random.Random(0)


@torch.compile
def rng_choice(x):
    return x * _RNG.choice([1.0, 2.0])  # expect: BL107


@torch.compile
def rng_shuffled_order(x):
    order = [0, 1, 2, 3]
    _RNG.shuffle(order)  # expect: BL107
    return x[order]


@torch.compile
def local_rng_sample(x):
    rng = random.Random(1)
    rows = rng.sample(range(8), 2)  # expect: BL107
    return x[rows]


class JitteredScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.rng = random.Random()

    def forward(self, x):
        return x * self.rng.gauss(1.0, 0.1)  # expect: BL107


jittered_scale = torch.compile(JitteredScale())


_collector = contextvars.ContextVar("collector", default=None)


@torch.compile
def collects(x):
    collected = _collector.get()  # expect: BL107
    return x * 2 if collected is None else x


class Collector:
    # transformers' output capturing: the variable is an attribute of a module-level helper.
    def __init__(self, name):
        self.context_var = contextvars.ContextVar(name, default=None)

    def get(self):
        return self.context_var.get()  # expect: BL107


_active = Collector("outputs")


class Captured(nn.Module):
    def forward(self, x):
        return x + 1 if _active.get() is None else x


captured = torch.compile(Captured())
