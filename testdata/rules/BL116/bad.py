"""BL116 positives: each marked line must graph-break under real Dynamo."""
import copy

import torch


@torch.compile
def snapshot(x: torch.Tensor):
    saved = copy.deepcopy(x)  # expect: BL116
    return x * 2 + saved


@torch.compile
def shallow(x: torch.Tensor):
    alias = copy.copy(x)  # expect: BL116
    return alias + 1
