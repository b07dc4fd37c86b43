"""BL109 negatives: introspection Dynamo traces."""
import inspect

import torch

SCALE = 2.0


class Config:
    scale = 2.0


def project(x, weight=None):
    return x


@torch.compile
def formats_shape(x):
    text = f"{x.shape} {x.dtype}"
    return x * len(text)


@torch.compile
def uses_module_class(x):
    return x * Config.scale * SCALE


@torch.compile
def reads_signature(x):
    parameters = inspect.signature(project).parameters
    return x + len(parameters)


@torch.compile
def validates(x, mode="sum"):
    # The frame is only inspected to word an error that valid calls never raise: `possible`.
    if mode not in ("sum", "mean"):
        frame = inspect.currentframe()  # possible: BL109
        raise ValueError(f"bad mode {mode!r} in {frame.f_code.co_name}")
    return x.sum() if mode == "sum" else x.mean()
