"""BL105 positives: each marked line must graph-break under real Dynamo."""
import pdb

import torch


@torch.compile
def user_break(x):
    x = x + 1
    torch._dynamo.graph_break()  # expect: BL105
    return x * 2


@torch.compile
def debugger(x):
    x = x + 1
    breakpoint()  # expect: BL105
    return x * 2


@torch.compile
def pdb_trace(x):
    x = x + 1
    pdb.set_trace()  # expect: BL105
    return x * 2
