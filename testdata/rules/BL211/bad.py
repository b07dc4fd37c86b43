"""BL211 positives: each marked call passes a compiled function another Python value, and Dynamo
recompiles it as often as the marker says, with that guard (torch 2.13)."""
import torch

X = torch.randn(8, 8)
CALLS = {name: [] for name in ("f_int", "f_flag", "f_mode", "f_bias", "f_scale", "f_dtype", "f_size", "f_many",
                               "f_range", "f_list", "f_rank", "f_layout", "f_pool", "f_batch", "f_states", "f_parts",
                               "f_count", "f_clip", "f_static", "f_static_scale", "f_mixed")}


@torch.compile
def f_int(x, n: int):
    return x * n


@torch.compile
def f_flag(x, flag: bool):
    return x * 2 if flag else x - 1


@torch.compile
def f_mode(x, mode: str):
    return x.sum() if mode == "sum" else x.mean() if mode == "mean" else x.amax()


@torch.compile
def f_bias(x, bias=None):
    if bias is None:
        return x * 2
    return x + bias


@torch.compile
def f_scale(x, s: float):
    return x * s


@torch.compile
def f_dtype(x):
    return x * 2


@torch.compile
def f_size(x, size: tuple):
    return x.reshape(size)


@torch.compile
def f_many(x, name: str):
    return x * len(name)


@torch.compile
def f_range(x, n: int):
    return x + n


@torch.compile
def f_list(parts):
    return torch.cat(parts).sum()


@torch.compile
def f_rank(x):
    return x - x.mean(-1, keepdim=True)


@torch.compile
def f_layout(w):
    return w / w.norm(dim=-1, keepdim=True)


@torch.compile
def f_pool(x):
    return x.relu().mean(-1)


@torch.compile
def f_batch(batch):
    return sum(v.sum() for v in batch.values())


@torch.compile
def f_states(states):
    return torch.stack(states).mean(0)


@torch.compile
def f_parts(parts):
    return sum(v.sum() for v in parts.values())


@torch.compile
def f_count(x, n):
    return x / n


@torch.compile
def f_clip(x, limit):
    return x.clamp(-limit, limit)


@torch.compile
def f_mixed(x, s):
    return x * s


def shifted(x, n: int):
    return x + n


def scaled(x, s: float):
    return x * s


f_static = torch.compile(shifted, dynamic=False)  # the call form: BL210 speaks of a decorator only
f_static_scale = torch.compile(scaled, dynamic=False)


def scenario_int_changes():
    f_int(X, 2)
    f_int(X, 3)  # expect: BL211 recompiles=1 guard="n == 2"


def scenario_flag_flips():
    f_flag(X, True)
    f_flag(X, False)  # expect: BL211 recompiles=1 guard="flag == True"


def scenario_mode_per_value():
    for mode in ("sum", "mean", "max"):
        f_mode(X, mode)  # expect: BL211 recompiles=2 guard="mode == 'sum'"


def scenario_bias_none_then_tensor():
    f_bias(X)
    f_bias(X, bias=X)  # expect: BL211 recompiles=1 guard="bias is None"


def scenario_float_changes():
    f_scale(X, 0.5)
    f_scale(X, 0.7)  # expect: BL211 recompiles=1 guard="s == 0.5"


def scenario_dtype_changes():
    f_dtype(X)
    f_dtype(X.half())  # expect: BL211 recompiles=1 guard="dtype mismatch"


def scenario_tuple_of_sizes():
    f_size(X, (64,))
    f_size(X, (4, 16))  # expect: BL211 recompiles=1 guard="len(size) == 1"


def scenario_ten_names():
    for name in ("a", "bb", "cc", "dd", "ee", "ff", "gg", "hh", "ii", "jj"):
        f_many(X, name)  # expect: BL211 recompiles=limit guard="name == 'a'"


def scenario_range_of_ints():
    for n in range(2, 6):
        f_range(X, n)  # expect: BL211 recompiles=1 guard="n == 2"


def scenario_list_length():
    f_list([X, X])
    f_list([X, X, X])  # expect: BL211 recompiles=1 guard="len(parts) == 2"


def scenario_rank():
    f_rank(torch.randn(4, 8))
    f_rank(torch.randn(8))  # expect: BL211 recompiles=1 guard="rank mismatch"


def scenario_transposed():
    f_layout(X)
    f_layout(X.t())  # expect: BL211 recompiles=1 guard="tensor 'w'"


def scenario_three_layouts():
    feats = torch.randn(16, 16)
    f_pool(feats)
    f_pool(feats.transpose(0, 1))  # expect: BL211 recompiles=2 guard="tensor 'x'"
    f_pool(feats[:, ::2])


def scenario_dict_keys():
    f_batch({"input": X})
    f_batch({"input": X, "mask": torch.ones(8, 8)})  # expect: BL211 recompiles=1 guard="len(batch) != 1"


def scenario_list_grows():
    states = [torch.randn(4)]
    for _ in range(4):
        f_states(states)
        states.append(torch.randn(4))  # expect: BL211 recompiles=3 guard="len(states) == 1"


def scenario_key_added():
    parts = {"a": torch.randn(4)}
    f_parts(parts)
    parts["b"] = torch.randn(4)  # expect: BL211 recompiles=1 guard="len(parts) != 1"
    f_parts(parts)


def scenario_count_from_data():
    for step in range(4):
        mask = torch.arange(8) < step + 2
        n = int(mask.sum())
        f_count(X, n)  # expect: BL211 recompiles=1 guard="n == "


def scenario_item_each_step():
    loss = torch.tensor(1.0)
    for _ in range(4):
        f_clip(X, loss.item())  # expect: BL211 recompiles=1 guard="limit == "
        loss = loss * 0.5


def scenario_static_ints():
    for n in range(2, 6):
        f_static(X, n)  # expect: BL211 recompiles=3 guard="n == 2"


def scenario_static_floats():
    f_static_scale(X, 0.5)
    f_static_scale(X, 0.7)  # expect: BL211 recompiles=2 guard="s == 0.5"
    f_static_scale(X, 0.9)


def scenario_int_then_float():
    f_mixed(X, 1)
    f_mixed(X, 2)  # expect: BL211 recompiles=2 guard="s == 1"
    f_mixed(X, 0.5)  # a float: a graph of its own
