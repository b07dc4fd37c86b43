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
