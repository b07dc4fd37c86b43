"""BL107 negatives: RNG and clocks that Dynamo traces, or that run outside the region."""
import os
import random
import time

import numpy as np
import torch


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
