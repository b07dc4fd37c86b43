"""BL123 positives: each marked line breaks under real Dynamo (the frame is skipped)."""
import torch


class StepTimer:
    def __enter__(self):
        print("step started")
        return self

    def __exit__(self, *exc):
        return False


class QuietScope:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class NamedScope(QuietScope):
    pass


TIMER = StepTimer()
SCOPE = NamedScope()


@torch.compile
def timed_step(x):
    with TIMER:  # expect: BL123
        y = x * 2
    return y


@torch.compile
def scoped_step(x):
    with SCOPE:  # expect: BL123
        y = x * 2
    return y
