"""BL101 negatives: nothing here may graph-break or be flagged."""
import torch


def not_compiled(x):
    return x.sum().item()


@torch.compile
def shape_to_int(x):
    return x * int(x.shape[0])


@torch.compile
def python_float(x, scale: float = 2.0):
    return x * float(scale)


@torch.compile
def numel_cast(x):
    return x / float(x.numel())


@torch.compile
def only_when_eager(x):
    if not torch.compiler.is_compiling():
        print(f"sum {x.sum().item()}")  # Dynamo never traces this branch
    return x + 1


def _log(x):
    return x.max().item()


@torch.compile
def helper_only_when_eager(x):
    if torch.compiler.is_compiling():
        return x * 2
    else:
        return x * _log(x)
