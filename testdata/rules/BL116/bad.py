"""BL116 positives: each marked line must graph-break under real Dynamo."""
import copy

import torch

DEFAULTS = {"scale": 2.0}


@torch.compile
def snapshot(x: torch.Tensor):
    saved = copy.deepcopy(x)  # expect: BL116
    return x * 2 + saved


@torch.compile
def shallow(x: torch.Tensor):
    alias = copy.copy(x)  # expect: BL116
    return alias + 1


@torch.compile
def with_defaults(x):
    # torch 2.11 refuses every deep copy; 2.13 traces this one (a dict of floats).
    options = copy.deepcopy(DEFAULTS)  # expect: BL116 (torch<=2.11)
    return x * options["scale"]
