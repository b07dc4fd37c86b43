"""BL101 negatives: nothing here may graph-break or be flagged."""
import math
from typing import Union

import numpy as np
import torch
import torch.nn.functional as F
from torch._dynamo.decorators import leaf_function


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


@torch._dynamo.config.patch(capture_scalar_outputs=True)
@torch.compile
def captured_scalar(x):
    return x * x.sum().item()  # traced as an unbacked SymInt under the patch


@torch.compile(fullgraph=True)
def fullgraph_captures(x):
    return x * int(x.max())  # fullgraph=True implies capture_scalar_outputs from 2.10


@torch.compile
def list_indexed_by_int(x):
    scales = [0.5, 1.0, 2.0]
    return x * scales[x.dim()]


@torch.compile
@torch._dynamo.config.patch(capture_scalar_outputs=True)
def captured_below_compile(x):
    # Dynamo cannot enter the patch's wrapper: it runs it eagerly and compiles this frame under
    # the patch, so the scalar is captured here too.
    return x * x.sum().item()


def _captured_by_wrapper(x):
    return x * x.max().item()


wrapped_capture = torch._dynamo.config.patch(capture_scalar_outputs=True)(torch.compile(_captured_by_wrapper))


@leaf_function
def logged_scale(x):
    # A leaf function runs eagerly: Dynamo never traces its body.
    return (x * x.sum().item(),)


@logged_scale.register_fake
def _(x):
    return (torch.empty_like(x),)


@torch.compile
def through_leaf_function(x):
    return logged_scale(x)[0] + 1


def _per_head_scores(x, heads):
    # `heads` sizes a new tensor (a Python int, not a tensor): `range(heads)` is fine.
    scores = torch.zeros(heads, x.shape[-1])
    for head in range(heads):
        scores[head] = x[head % x.shape[0]]
    return scores


class PerHead(torch.nn.Module):
    def __init__(self, heads=4):
        super().__init__()
        self.heads = heads

    def forward(self, x):
        return _per_head_scores(x, self.heads)


per_head = torch.compile(PerHead())


def _captured_at_call_sites(x):
    return x / x.abs().max().item()  # every call of the compiled function is under the patch


def scenario_calls_under_patch():
    fast = torch.compile(_captured_at_call_sites, backend="eager")
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        fast(torch.randn(8, 8))
        fast(torch.randn(8, 8))


# NumPy that Dynamo folds or keeps as arithmetic: an element-wise function of Python numbers
# has a value known while tracing, and constants are constants.
class ScaledDotProduct(torch.nn.Module):
    def __init__(self, head_dim=8):
        super().__init__()
        self.head_dim = head_dim
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        scores = self.proj(x) / np.sqrt(self.head_dim)
        scale = float(np.sqrt(x.shape[-1]))
        return scores * scale


scaled_dot_product = torch.compile(ScaledDotProduct())


@torch.compile
def pad_to_chunk_multiple(x):
    chunk = np.lcm(2, 4)
    padding = (chunk - x.shape[-1] % chunk) % chunk
    return F.pad(x, (0, padding)).reshape(-1, np.lcm(2, 4))


@torch.compile
def number_of_chunks(x):
    chunks = int(np.ceil(x.shape[-1] / 3))
    return x.new_zeros(chunks) + x.sum()


@torch.compile
def numpy_constants(x):
    low = np.finfo(np.float32).min
    return x.clamp(min=low) * np.pi + np.iinfo(np.int32).max % 7


@torch.compile
def block_offsets(x):
    offsets = np.arange(0, 8, 2, dtype=np.int32)
    for offset in np.arange(2):
        x = x + offset
    return x + torch.from_numpy(offsets).sum() * math.sqrt(x.shape[-1])


class PlannedBlocks(torch.nn.Module):
    """The NumPy plan is built once in __init__ and kept as a buffer: forward only indexes it."""

    def __init__(self):
        super().__init__()
        counts = np.array([2, 4]) // 2
        plan = np.zeros((int(counts.sum()), 8), dtype=np.float32)
        for row in range(int(counts[0])):
            plan[row] = 1.0
        self.register_buffer("plan", torch.from_numpy(plan))

    def forward(self, x):
        return x + self.plan[: x.shape[0]].sum()


planned_blocks = torch.compile(PlannedBlocks())


class StaticGlobalAttention(torch.nn.Module):
    """The same layout as a Longformer layer, with the global count a Python int (from the
    shape) handed back in the helper's tuple: `narrow` gets an int, nothing is read back."""

    def __init__(self):
        super().__init__()
        self.scores = torch.nn.Linear(8, 8)

    @staticmethod
    def _get_global_attn_indices(hidden_states):
        num_global = hidden_states.shape[-1] // 4
        is_index_global_attn = hidden_states[:, :num_global] > 1.0
        return num_global, is_index_global_attn

    def _split_sizes(self, attn_probs):
        return attn_probs.sum(dim=-1), attn_probs.size(-1) // 2

    def forward(self, hidden_states):
        num_global, is_index_global_attn = self._get_global_attn_indices(hidden_states)
        attn_probs = self.scores(hidden_states).softmax(dim=-1)
        local = attn_probs.narrow(-1, num_global, attn_probs.size(-1) - num_global)
        totals, half = self._split_sizes(attn_probs)
        right = attn_probs.narrow(-1, half, half)
        return local.sum() + right.sum() + totals.sum() + is_index_global_attn.float().sum()


static_global_attention = torch.compile(StaticGlobalAttention())


def _prefix_length(x):
    return x.shape[-1] // 2, x.sum(dim=-1)


@torch.compile
def drop_fixed_prefix(x):
    start = _prefix_length(x)[0]
    return torch.narrow(x, 1, start, x.shape[1] - start)


def _lambda_doubled(x):
    return x * 2


def _lambda_never_called(x):
    return x.sum().item()


# A lambda compiled: what its body calls is compiled, a function it only names is not.
doubled = torch.compile(lambda x: _lambda_doubled(x) if _lambda_never_called is not None else x)


class _EagerTrainer:
    """Called like a compile helper, a method that never compiles (torch.compile is named only
    in this docstring)."""

    def __init__(self):
        self.step = self.keep(self._step)

    def _step(self, x):
        return x * x.sum().item()

    def keep(self, fn):
        return fn


EAGER_TRAINER = _EagerTrainer()


def _scaled_by(x, n):
    # type: (Tensor, int) -> Tensor
    return x * int(n)  # `n` is an int by the helper's type comment: int() of an int


@torch.compile
def scaled_by(x, n):
    return _scaled_by(x, n)


CALLS = {"scaled_by": [(torch.randn(8, 8), 3) for _ in range(3)]}


def _gaussian_scale(x, sigma: Union[float, torch.Tensor]):
    # A number or a tensor, told apart by `isinstance` (kornia's kernels): float() of the number.
    if isinstance(sigma, (int, float)):
        sigma = torch.tensor([[float(sigma)]])
    return x * sigma


@torch.compile
def gaussian_scaled(x):
    return _gaussian_scale(x, 1.5)


def is_compiling() -> bool:
    # A library's own wrapper (kornia.core.utils.is_compiling), known by its name.
    return torch.compiler.is_compiling()


@torch.compile
def synced_only_eagerly(x):
    if not is_compiling():
        return x * x.sum().item()  # eager only: Dynamo takes the other branch
    return x * 2


class DropPathEagerOnly(torch.nn.Module):
    # timm/transformers style: an early return Dynamo always takes, then eager-only code.
    def forward(self, x):
        if not self.training or torch.compiler.is_compiling():
            return x
        keep = x.sum().item()  # never traced: the `if` above returns while compiling
        return x * keep


drop_path = torch.compile(DropPathEagerOnly().train())


@torch.compile
def returns_while_compiling(x):
    if torch._dynamo.is_compiling() or x.dim() > 5:
        return x + 1
    return x * x.sum().item()  # never traced


@torch.compile
def skips_while_compiling(x):
    for _ in range(2):
        if is_compiling():
            continue
        x = x * x.sum().item()  # never traced: `continue` ends each pass while compiling
    return x


@torch.compile
def returns_unless_scripting(x):
    if torch.jit.is_scripting():
        y = x  # TorchScript only
    else:
        return x * 2
    return y * y.sum().item()  # never traced: the `else` returns while compiling


@torch.compile
def helper_after_early_return(x):
    if torch.compiler.is_compiling():
        return x * 2
    return x * _log(x)  # `_log` is not reached: never called while compiling


# Virtual dispatch: `_Policy.run` calls `self.step`, which is the override of the instance's
# class. Only a `Doubling` is compiled; `Normalising.step` never runs in a region.
class _Policy:
    def run(self, x):
        return self.step(x) + 1

    def step(self, x):
        return x


class Doubling(_Policy):
    def step(self, x):
        return x * 2


class Normalising(_Policy):
    def step(self, x):
        return x / x.sum().item()  # no compiled code holds a Normalising


doubling = Doubling()


@torch.compile
def doubled(x):
    return doubling.run(x)


# transformers' BeitRelativePositionBias: a window of shape ints from the parent module, cast by
# a helper (`torch_int`) to size a slice. Dynamo specialises the ints: no break. (Static side:
# tests/test_arguments.py, with the helper in another file and no compile call seen.)
def _to_int(value):
    return int(value)


class WindowBias(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.nn.Parameter(torch.zeros(32, 8))

    def forward(self, window, dim=None):
        size = 2 * window[0] - 1
        return self.table[: _to_int(size)]


class WindowedAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = WindowBias()

    def forward(self, x):
        window = (x.shape[1], x.shape[0] // 2)
        return x + self.bias(window, dim=x.shape[1]).sum()


windowed_attention = torch.compile(WindowedAttention())
