"""BL211 negatives: the same Python values at every call, or only tensors that change."""
import torch

X = torch.randn(8, 8)
CALLS = {name: [] for name in ("f_int", "f_flag", "f_bias", "f_dtype")}


@torch.compile
def f_int(x, n: int):
    return x * n


@torch.compile
def f_flag(x, flag: bool):
    return x * 2 if flag else x - 1


@torch.compile
def f_bias(x, bias=None):
    if bias is None:
        return x * 2
    return x + bias


@torch.compile
def f_dtype(x):
    return x * 2


def scenario_same_int():
    f_int(X, 2)
    f_int(X, 2)


def scenario_same_flag():
    for _ in range(3):
        f_flag(X, True)


def scenario_always_a_tensor():
    f_bias(X, bias=torch.randn(8, 8))  # not X itself: `bias is x` is guarded too
    f_bias(X, bias=torch.randn(8, 8))


def scenario_same_dtype():
    f_dtype(X.half())
    f_dtype(torch.randn(8, 8).half())
