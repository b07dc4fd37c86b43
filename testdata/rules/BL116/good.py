"""BL116 negatives: clone, and deep copies of plain containers."""
import copy

import torch

DEFAULTS = {"scale": 2.0}


@torch.compile
def cloned(x):
    options = copy.deepcopy(DEFAULTS)
    return x.clone() * options["scale"] + x.detach().clone()

