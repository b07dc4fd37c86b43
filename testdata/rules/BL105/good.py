"""BL105 negatives."""
import torch


def debug_outside(x):
    breakpoint()
    return x


@torch.compile
def clean(x):
    return (x + 1) * 2


@torch._dynamo.nonstrict_trace
def checkpointed(x):
    # Dynamo does not trace a nonstrict_trace body: a graph break there is no break.
    torch._dynamo.graph_break()
    return x * 2


@torch.compile
def through_nonstrict_trace(x):
    return checkpointed(x) + 1


@torch.compiler.disable
def eager_entry(x):
    breakpoint()  # disabled: never traced, and not called from compiled code
    return x


def _scale(t):
    return t * 3


def _apply_hook(hook, x):
    return hook(x) * 2


@torch.compile
def with_plain_hook(x):
    return _apply_hook(_scale, x)


class _Schedule:
    # Not an optimizer: its `step` and `zero_grad` are plain methods, traced.
    def step(self):
        return 1

    def zero_grad(self):
        return 0


SCHEDULE = _Schedule()


@torch.compile
def scheduled(x):
    return x * (SCHEDULE.step() + SCHEDULE.zero_grad())
