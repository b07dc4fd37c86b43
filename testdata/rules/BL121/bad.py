"""BL121 positives: each marked line breaks under real Dynamo (the exception leaves the frame)."""
import torch


class EarlyExit(Exception):
    """A sentinel used for control flow, as some search and decoding loops do."""


@torch.compile
def stops_early(x):
    y = x * 2
    raise EarlyExit(y)  # expect: BL121


@torch.compile
def validates_width(x):
    if x.shape[-1] == 8:
        raise ValueError(f"width {x.shape[-1]} is not supported")  # miss: BL121 (an error path under an `if`: not reported, valid calls do not take it; these inputs do)
    return x


@torch.compile
def checks_under_no_grad(x):
    with torch.no_grad():
        assert x.shape[0] == 4, "expected a batch of 4"  # possible: BL121 (fails for the runner's batch of 8)
        return x * 2
