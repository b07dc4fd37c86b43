"""BL211 negatives: the same Python values at every call, or only tensors that change."""
import torch

X = torch.randn(8, 8)
CALLS = {name: [] for name in ("f_int", "f_flag", "f_bias", "f_dtype", "f_layout", "f_batch", "f_states", "f_count",
                               "f_dynamic", "f_dynamic_count")}


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


@torch.compile
def f_layout(w):
    return w / w.norm(dim=-1, keepdim=True)


@torch.compile
def f_batch(batch):
    return batch["input"] * batch["mask"]


@torch.compile
def f_states(states):
    return torch.stack(states).mean(0)


@torch.compile
def f_count(x, n):
    return x / n


@torch.compile(dynamic=True)
def f_dynamic(x, n: int):
    return x + n


@torch.compile(dynamic=True)
def f_dynamic_count(x, n):
    return x / n


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


def scenario_contiguous_copy():
    f_layout(X)
    f_layout(X.t().contiguous())  # the same strides as X


def scenario_same_keys():
    for _ in range(3):
        f_batch({"input": torch.randn(4, 8), "mask": torch.ones(4, 8)})


def scenario_same_length():
    states = [torch.randn(4), torch.randn(4)]
    for _ in range(3):
        f_states(states)
        states[0] = torch.randn(4)  # an element replaced: the length stays


def scenario_count_read_once():
    mask = torch.arange(8) < 5
    f_count(X, int(mask.sum()))  # one call: nothing to recompile


def scenario_dynamic_ints():
    for n in range(2, 6):
        f_dynamic(X, n)  # dynamic=True: an int is a symbol from the first call


def scenario_dynamic_count_from_data():
    for step in range(4):
        mask = torch.arange(8) < step + 2
        f_dynamic_count(X, int(mask.sum()))
