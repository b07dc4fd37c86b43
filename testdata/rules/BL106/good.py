"""BL106 negatives: logging that Dynamo never traces."""
import logging

import torch
from torch._dynamo.decorators import leaf_function

logger = logging.getLogger(__name__)


@torch.compile
def guarded(x):
    if not torch.compiler.is_compiling():
        print("eager only")
        logger.info("eager only")
    return x * 2


@torch.compile
def formats_only(x):
    message = f"shape {x.shape}"
    return x + len(message)


def train_step(x):
    loss = guarded(x).sum()
    logger.info("loss %s", loss.item())  # outside the compiled function
    return loss


@torch._dynamo.nonstrict_trace
def traced_nonstrictly(x):
    # Dynamo does not trace a nonstrict_trace body; it runs as Python: no break.
    print("nonstrict")
    logger.info("nonstrict %s", x.shape)
    return x * 2


@torch.compile
def through_nonstrict_trace(x):
    return traced_nonstrictly(x) + 1


@leaf_function
def logged(x):
    # A leaf function runs eagerly at run time; Dynamo calls its fake at compile time.
    print("leaf")
    return (x + 1,)


@logged.register_fake
def _(x):
    return (torch.empty_like(x),)


@torch.compile
def through_leaf_function(x):
    return logged(x)[0] * 2


@torch.compile
def verbose_only(x, verbose=False):
    # Reported as a `possible` break (severity info): the branch only logs, and only runs
    # with verbose=True, which these calls never pass.
    if verbose:
        logger.info("input %s", x.shape)  # possible: BL106
    return x * 2


def _is_tracing():
    # torchvision's own wrapper (torchvision/__init__.py): only torch.jit.trace (ONNX export) sets
    # the tracing state; while Dynamo traces it is None.
    return torch._C._get_tracing_state()


@torch.compile
def onnx_export_only(x):
    if _is_tracing():
        print("exporting to ONNX")
    if torch._C._get_tracing_state():
        logger.warning("traced by torch.jit")
    return x * 2


class QuietTag:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, QuietTag) and other.name == self.name

    def __call__(self, t):
        return t * 2


CURRENT, WANTED = QuietTag("v1"), QuietTag("v1")


@torch.compile
def compares_quiet_tags(x):
    if CURRENT == WANTED:
        return CURRENT(x)
    return x


class LoudTag(QuietTag):
    def __eq__(self, other):
        print("comparing", self.name)  # never called in compiled code
        return False


def compares_outside(x):
    return LoudTag("a") == LoudTag("b")


@torch.compile
def logged_after_early_return(x):
    if not torch.is_grad_enabled() or torch.compiler.is_compiling():
        return x * 2
    print("eager step")  # never traced: the `if` above returns while compiling
    return x



class WarnsInSetter(torch.nn.Module):
    # What `forward` reads is the getter's result, never the setter beside it.
    @property
    def loss_function(self):
        return torch.nn.functional.mse_loss

    @loss_function.setter
    def loss_function(self, value):
        logger.warning("loss function replaced")
        self._loss_function = value

    def forward(self, x):
        return self.loss_function(x, x.flip(0))


warns_in_setter = torch.compile(WarnsInSetter())
