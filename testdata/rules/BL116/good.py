"""BL116 negatives: clone instead of a copy (a deep copy of a plain dict: bad.py, torch<=2.11)."""
import torch

SCALE = 2.0


@torch.compile
def cloned(x):
    return x.clone() * SCALE + x.detach().clone()
