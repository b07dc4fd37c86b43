"""BL201 negatives: state that Dynamo traces, or that does not change a guard."""
import torch
from torch import nn

MODE = "fast"


class Buffered(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        self.calls += 1  # a tensor buffer updated in place: traced
        self.last = x  # storing a tensor changes no guard
        self.mode = "train"  # the same constant every call
        return x * 2


@torch.compile
def local_counter(x):
    count = 0
    count += 1
    seen = []
    seen.append(count)
    return x + len(seen)


@torch.compile
def reads_global(x):
    return x * 2 if MODE == "fast" else x


buffered = torch.compile(Buffered())


CALLS_SEEN = [0]


@torch._dynamo.nonstrict_trace
def counted(x):
    # Dynamo does not trace a nonstrict_trace body, so it installs no guard on what it mutates.
    CALLS_SEEN[0] += 1
    return x * 2


@torch.compile
def through_nonstrict_trace(x):
    return counted(x) + 1
