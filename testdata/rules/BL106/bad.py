"""BL106 positives: each marked line must graph-break under real Dynamo."""
import logging
import sys
import warnings

import torch
from torch import nn

logger = logging.getLogger(__name__)


@torch.compile
def prints(x):
    print("scaling", x.shape)  # expect: BL106
    return x * 2


@torch.compile
def logs_through_logger(x):
    y = x.softmax(-1)
    logger.warning("softmax done")  # expect: BL106
    return y * 2


@torch.compile
def logs_through_module(x):
    logging.info("step")  # expect: BL106
    return x + 1


@torch.compile
def checks_log_level(x):
    if logger.isEnabledFor(logging.DEBUG):  # expect: BL106
        return x
    return x + 1


@torch.compile
def warns(x):
    warnings.warn("deprecated path")  # expect: BL106
    return x - 1


@torch.compile
def writes_stderr(x):
    sys.stderr.write("tick\n")  # expect: BL106
    return x * 3


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.log = logging.getLogger("block")

    def forward(self, x):
        self.log.debug("block forward")  # expect: BL106
        return self.proj(x)


block = torch.compile(Block())


@torch.compile
def deprecated_argument(x, scale=None):
    # A branch that only warns, under a Python test: a `possible` break. These calls pass
    # the deprecated argument, so the branch runs and Dynamo breaks there.
    if scale is not None:
        warnings.warn("`scale` is deprecated and ignored", FutureWarning)  # possible: BL106
    return x * 2


CALLS = {"deprecated_argument": [(torch.randn(8, 8), 2.0) for _ in range(3)]}


def _is_tracing():
    # torchvision's wrapper: None while Dynamo traces, so the `not` branch runs and breaks.
    return torch._C._get_tracing_state()


@torch.compile
def unless_jit_tracing(x):
    if not _is_tracing():
        print("not exported")  # expect: BL106
    return x * 2
