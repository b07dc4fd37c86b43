"""BL106 positives: each marked line must graph-break under real Dynamo."""
import functools
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


class TracedConfig:
    """A settings object that logs every write: `cfg.scale = v` runs its __setattr__."""

    def __init__(self):
        object.__setattr__(self, "values", {})

    def __setattr__(self, key, value):
        print(f"config.{key} = {value}")  # expect: BL106
        self.values[key] = value


RUN_CONFIG = TracedConfig()


@torch.compile
def sets_config(x):
    RUN_CONFIG.scale = 2
    return x * 2


class VersionTag:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        print("comparing", self.name)  # expect: BL106
        return isinstance(other, VersionTag) and other.name == self.name


CURRENT, WANTED = VersionTag("v1"), VersionTag("v1")


@torch.compile
def compares_tags(x):
    if CURRENT == WANTED:
        return x + 1
    return x


class ChunkPlan:
    def __iter__(self):
        print("planning chunks")  # expect: BL106
        return iter((0, 4))


PLAN = ChunkPlan()


@torch.compile
def chunked(x):
    for start in PLAN:
        x = x + start
    return x


class Scaler:
    def __call__(self, t):
        print("scaling")  # expect: BL106
        return t * 2


SCALE = Scaler()


@torch.compile
def scaled(x):
    return SCALE(x) + 1


class Logged(torch.nn.Module):
    def forward(self, x):
        print("forward")  # expect: BL106
        return x + 1


LOGGED = Logged()
# A lambda compiled around a module: its forward is inlined (analysis/regions.py).
logged_twice = torch.compile(lambda x: LOGGED(x) * 2)


@functools.lru_cache(None)
def _warning_once(self, *args, **kwargs):
    self.warning(*args, **kwargs)


# transformers adds `warning_once` (and `info_once`, `warning_advice`) to every logger.
logging.Logger.warning_once = _warning_once
transformers_logger = logging.getLogger("breaklint.testdata.transformers")


@torch.compile
def warns_once(x):
    transformers_logger.warning_once("`use_cache=True` is incompatible with gradient checkpointing")  # expect: BL106
    return x * 2



class WarnsInProperty(nn.Module):
    # A property with a setter (transformers' `PreTrainedModel.loss_function`): what `forward`
    # reads is the getter's result.
    @property
    def loss_function(self):
        logger.warning("no loss type set: using MSE")  # expect: BL106
        return nn.functional.mse_loss

    @loss_function.setter
    def loss_function(self, value):
        self._loss_function = value

    def forward(self, x):
        return self.loss_function(x, x.flip(0))


warns_in_property = torch.compile(WarnsInProperty())
