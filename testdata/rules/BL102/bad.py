"""BL102 positives: each marked line must graph-break under real Dynamo."""
import torch


@torch.compile
def if_on_sum(x):
    if x.sum() > 0:  # expect: BL102
        return x
    return -x


@torch.compile
def ternary(x):
    return x if x.max() > 0 else -x  # expect: BL102


@torch.compile
def while_on_tensor(x):
    while x.abs().sum() < 1000:  # expect: BL102
        x = x * 2
    return x


@torch.compile
def and_operands(x):
    return (x.sum() > 0) and (x.mean() > 0)  # expect: BL102


@torch.compile
def not_any(x):
    if not (x > 100).any():  # expect: BL102
        return x
    return x * 0


class Gate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(x)
        if h.mean() > 0:  # expect: BL102
            return h
        return x


gate = torch.compile(Gate())


@torch.compile
def numpy_all(x):
    import numpy as np

    return x if np.all(x.numpy() > -100) else -x  # expect: BL102


@torch._dynamo.nonstrict_trace
def _clamped_outside_dynamo(x: torch.Tensor):
    if x.sum() > 0:  # expect: BL102
        return x * 2
    return x


@torch.compile
def through_nonstrict_trace(x):
    return _clamped_outside_dynamo(x) + 1  # expect: BL102
