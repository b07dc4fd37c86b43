"""BL109 positives: each marked line must graph-break under real Dynamo."""
import inspect
import sys

import torch


@torch.compile
def looks_up_globals(x):
    scale = globals().get("SCALE", 1.0)  # expect: BL109
    return x * scale


@torch.compile
def describes(x: torch.Tensor):
    text = str(x)  # expect: BL109
    return x + len(text)


@torch.compile
def debug_repr(x: torch.Tensor):
    text = repr(x.sum())  # expect: BL109
    return x - len(text)


@torch.compile
def who_called(x):
    caller = inspect.currentframe()  # expect: BL109
    return x * 2


@torch.compile
def frame_depth(x):
    frame = sys._getframe()  # expect: BL109
    return x + 1


@torch.compile
def runs_code(x):
    exec("pass")  # expect: BL109
    return x + 2


@torch.compile
def counts_locals(x):
    return x * len(locals())  # expect: BL109 (torch<=2.11)


@torch.compile
def local_class(x):
    class Config:  # expect: BL109
        scale = 2.0

    return x * Config.scale


@torch.compile
def names_its_caller(x, strict=True):
    # An error path (it ends in `raise`): a `possible` break. Here it is taken on every call.
    if strict:
        caller = sys._getframe(1).f_code.co_name  # possible: BL109
        raise TypeError(f"called from {caller} with strict=True")
    return x + 1
