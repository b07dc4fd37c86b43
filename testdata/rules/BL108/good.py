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
