"""BL123 negatives: context managers made in the traced frame."""
import contextlib

import torch


class QuietScope:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@contextlib.contextmanager
def scope():
    yield


SCOPE = QuietScope()


@torch.compile
def fresh_instance(x):
    with QuietScope():
        y = x * 2
    return y


@torch.compile
def generator_scope(x):
    with scope():
        y = x * 2
    return y


def outside(x):
    with SCOPE:  # not compiled
        return x * 2
