"""BL121 negatives: exceptions caught inside the frame, and error paths not taken."""
import torch


@torch.compile
def caught(x):
    try:
        raise KeyError("missing")
    except KeyError:
        return x * 2


@torch.compile
def validates_width(x):
    if x.shape[-1] > 64:
        raise ValueError("too wide")  # an error path these inputs do not take
    return x + 1


@torch.compile
def asserts_outside_with(x):
    assert x.shape[0] == 8
    return x * 3


def _reduce(src, how):
    if how == "sum":
        return src.sum(0)
    if how == "mean":
        return src.mean(0)
    raise ValueError(f"invalid reduce {how!r}")  # the fall-through of a dispatch these calls do not take


@torch.compile
def reduced(x):
    return _reduce(x, "mean") + 1
