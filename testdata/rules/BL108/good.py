"""BL108 negatives: I/O outside the compiled code, path strings built inside it."""
import os

import torch

CACHE = "/tmp/breaklint-testdata-bl108"


@torch.compile
def forward(x):
    name = os.path.join(CACHE, "act.pt")  # only string work: traced
    return x.relu() * len(name)


def train_step(x):
    y = forward(x)
    os.makedirs(CACHE, exist_ok=True)
    torch.save(y, os.path.join(CACHE, "act.pt"))
    return y


def _load_if_path(arg):
    # Dynamo answers `isinstance` while tracing: for a tensor the I/O is never traced.
    if isinstance(arg, str) and os.path.exists(arg):
        return torch.load(arg)
    if not isinstance(arg, torch.Tensor):
        with open(arg) as handle:
            return torch.tensor(float(handle.read()))
    return arg if isinstance(arg, torch.Tensor) else torch.load(arg)


@torch.compile
def loads_only_paths(x):
    return _load_if_path(torch.relu(x)) + 1
