"""BL108 positives: each marked line must graph-break under real Dynamo."""
import io
import json
import os
import pickle
from pathlib import Path

import torch

CACHE = "/tmp/breaklint-testdata-bl108"
os.makedirs(CACHE, exist_ok=True)


@torch.compile
def dumps_activations(x):
    y = x.relu()
    torch.save(y, os.path.join(CACHE, "act.pt"))  # expect: BL108
    return y


@torch.compile
def reads_config(x):
    config = json.loads('{"scale": 2}')  # expect: BL108
    return x * 2


@torch.compile
def caches_to_disk(x):
    if os.path.exists(os.path.join(CACHE, "stats.pkl")):  # expect: BL108
        return x
    return x + 1


@torch.compile
def serialises(x):
    blob = pickle.dumps([1, 2, 3])  # expect: BL108
    return x + len(blob)


@torch.compile
def writes_log_file(x):
    with open(os.path.join(CACHE, "log.txt"), "w") as handle:  # expect: BL108
        handle.write("step\n")
    return x * 3


@torch.compile
def reads_vocab(x):
    text = Path(__file__).read_text()  # expect: BL108
    return x + 1


@torch.compile
def buffers(x):
    buffer = io.BytesIO()  # expect: BL108
    return x - 1


@torch.compile
def lists_checkpoints(x):
    names = os.listdir(CACHE)  # expect: BL108
    return x * 2


def _is_valid_arg(arg):
    # kornia's `_is_valid_arg`: Dynamo answers `isinstance` while tracing, so the I/O runs only
    # for a path. The argument is likely a tensor (a `possible` break); these calls pass a path.
    if isinstance(arg, str) and os.path.exists(arg):  # possible: BL108
        return True
    return isinstance(arg, torch.Tensor)


@torch.compile
def tensor_or_path(x, source):
    return x * 2 if _is_valid_arg(source) else x


CALLS = {"tensor_or_path": [(torch.randn(8, 8), CACHE) for _ in range(3)]}
