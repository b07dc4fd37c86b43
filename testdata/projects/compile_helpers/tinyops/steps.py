"""Steps compiled by decorators that are this module's own compile helpers: a wrapper that
compiles unless the run is eager, a factory of wrappers with options, an alias chosen by a flag,
a `functools.partial` of torch.compile, and a look-alike that compiles nothing."""
import functools
import os

import torch

from tinyops.compiling import compile_fn

USE_COMPILE = os.environ.get("USE_COMPILE", "1") == "1"


def maybe_compile(fn):
    if USE_COMPILE:
        return torch.compile(fn)
    return fn


def compile_with(**options):
    def wrap(fn):
        return torch.compile(fn, **options)
    return wrap


def traced(fn):
    return fn


compiler = torch.compile if USE_COMPILE else (lambda fn: fn)
dynamic_compile = functools.partial(torch.compile, dynamic=True)


@maybe_compile
def total(x):
    return x.sum().item()  # expect: BL101


@compile_with(dynamic=False)
def shifted(x):
    print("shift", x.mean())  # expect: BL106
    return x + 1


@compiler
def as_list(x):
    return (x * 2).tolist()  # expect: BL101


@dynamic_compile
def distinct(x):
    return x.unique()  # expect: BL104


@traced
def eager_total(x):
    return x.sum().item()


@compile_fn
def rounded(x):
    return int(x.sum())  # expect: BL101
