"""BL101 positives: each marked line must graph-break under real Dynamo."""
import math
import random
from typing import Dict

import numpy as np
import torch


@torch.compile
def scale_by_total(x):
    return x * x.sum().item()  # expect: BL101


@torch.compile
def to_list(x: torch.Tensor):
    values = x[0].tolist()  # expect: BL101
    return x + len(values)


@torch.compile
def as_int(x: torch.Tensor):
    return x * int(x.max())  # expect: BL101


@torch.compile
def as_float(x: torch.Tensor):
    return x / float(x.abs().sum())  # expect: BL101


def _helper(t):
    return t.mean().item()  # expect: BL101


@torch.compile
def through_helper(x):
    return x - _helper(x)


@torch.compile
def as_bool(x: torch.Tensor):
    return x * bool(x.sum() > 0)  # expect: BL101


@torch.compile
def int_tolist(x):
    return x + len(x.long()[0].tolist())  # expect: BL101


SCALES = [0.5, 1.0, 2.0]


@torch.compile
def list_indexed_by_tensor(x):
    i = (x.sum() > 0).long()
    return x * SCALES[i]  # expect: BL101


@torch.compile
def sliced_by_tensor(x):
    n = (x[0, 0] > 0).long() + 2
    return x[:n]  # expect: BL101


@torch.compile
def range_of_tensor(x):
    steps = x.sum().long().abs() % 3 + 1
    for _ in range(steps):  # expect: BL101
        x = x * 2
    return x


class ScaleByTotal(torch.autograd.Function):
    """Dynamo inlines `apply` into `forward`: the break is reported at its line."""

    @staticmethod
    def forward(ctx, x):
        return x * x.sum().item()  # expect: BL101

    @staticmethod
    def backward(ctx, grad):
        return grad


@torch.compile
def through_autograd_function(x):
    return ScaleByTotal.apply(x) + 1


class NormalisedGrad(torch.autograd.Function):
    """With an input that requires grad, Dynamo traces `backward` at the `apply` too."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad / grad.abs().max().item()  # expect: BL101


@torch.compile
def through_autograd_backward(x):
    return NormalisedGrad.apply(x).sum()


CALLS = {"through_autograd_backward": [(torch.randn(8, 8, requires_grad=True),) for _ in range(3)]}


def _row_scale(x):
    return x * x.sum().item()  # expect: BL101


class ScaledBlock(torch.nn.Module):
    def forward(self, x):
        return _row_scale(x) + 1


class Stack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList([ScaledBlock() for _ in range(2)])

    def forward(self, x):
        for block in self.blocks:  # a break below this loop: Dynamo skips Stack.forward (GB7000)
            x = block(x)
        return x


stack = torch.compile(Stack())


@torch.compile
def grow_until(x, limit=1000.0):
    # The test runs again at the end of every pass: its break is one in the loop (GB7000).
    while x.abs().sum().item() < limit:  # expect: BL101
        x = x * 2
    return x


@torch._dynamo.nonstrict_trace
def _scaled_outside_dynamo(x):
    # Dynamo does not trace this body, it runs it non-strictly; the scalar makes that fail,
    # Dynamo breaks at the call, then traces this function as a frame of its own and breaks here.
    return x * x.sum().item()  # expect: BL101


@torch.compile
def through_nonstrict_trace(x):
    return _scaled_outside_dynamo(x) + 1  # expect: BL101


# NumPy on Python values inside a region is traced as tensors (torch._numpy): reading the
# result back as a Python number breaks as it does for a tensor.
class RandomBlockPlan(torch.nn.Module):
    """BigBird-style: the random-attention plan is built with NumPy inside forward."""

    def __init__(self, block_size=2, plan_num_rand_blocks=(1, 2)):
        super().__init__()
        self.block_size = block_size
        self.plan_num_rand_blocks = list(plan_num_rand_blocks)
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        num_blocks = x.shape[-1] // self.block_size
        rand_attn = np.zeros((num_blocks, np.sum(self.plan_num_rand_blocks)), dtype=np.int32)  # expect: BL101
        return self.proj(x) + torch.from_numpy(rand_attn).sum()


random_block_plan = torch.compile(RandomBlockPlan())


def _candidate_blocks(to_start_block_id, to_end_block_id):
    # Every caller passes elements of a NumPy array: traced 0-d arrays, not Python ints.
    return np.arange(to_start_block_id, to_end_block_id, dtype=np.int32)  # expect: BL101


@torch.compile
def candidate_blocks(x):
    plan_block_length = np.array([8, 16]) // 2
    blocks = _candidate_blocks(plan_block_length[0], plan_block_length[1])
    return x + torch.from_numpy(blocks).sum()


@torch.compile
def rows_per_plan(x):
    plan_block_length = np.array([4, 8]) // 2
    out = x
    for _ in range(1, plan_block_length[0]):  # expect: BL101
        out = out * 2
    return out


@torch.compile
def total_random_blocks(x):
    total = int(np.sum([1, 2, 3]))  # expect: BL101
    return x * total


@torch.compile
def widest_block(x):
    width = np.max([2, 4]).item()  # expect: BL101
    return x * width


@torch.compile
def scale_for_plan(x):
    scales = [0.5, 1.0, 2.0]
    return x * scales[np.argmax([0.1, 0.7, 0.2])]  # expect: BL101


@torch.compile
def norm_by_blocks(x):
    return x / math.sqrt(np.sum([4, 4]))  # expect: BL101


@torch.compile
def flatten_blocks(x):
    return x.reshape(-1, np.prod([2, 4]))  # expect: BL101


class GlobalLocalAttention(torch.nn.Module):
    """Longformer-style: a static helper counts the global tokens and hands the count back in a
    tuple; the caller unpacks it and narrows the probabilities past the global columns."""

    def __init__(self):
        super().__init__()
        self.scores = torch.nn.Linear(8, 8)

    @staticmethod
    def _get_global_attn_indices(is_index_global_attn):
        num_global_attn_indices = is_index_global_attn.long().sum(dim=1)
        max_num_global_attn_indices = num_global_attn_indices.max()
        return max_num_global_attn_indices, num_global_attn_indices

    def _local_attn_probs(self, attn_probs, max_num_global_attn_indices):
        return attn_probs.narrow(  # expect: BL101
            -1, max_num_global_attn_indices, attn_probs.size(-1) - max_num_global_attn_indices
        )

    def forward(self, hidden_states):
        is_index_global_attn = hidden_states > 1.0
        max_num_global_attn_indices, _ = self._get_global_attn_indices(is_index_global_attn)
        attn_probs = self.scores(hidden_states).softmax(dim=-1)
        return self._local_attn_probs(attn_probs, max_num_global_attn_indices)


global_local_attention = torch.compile(GlobalLocalAttention())


def _longest_prefix(mask):
    lengths = mask.long().sum(dim=-1)
    return lengths.max(), lengths


@torch.compile
def drop_longest_prefix(x):
    start = _longest_prefix(x > 1.0)[0]
    return torch.narrow(x, 1, start, 8 - start)  # expect: BL101


def _lambda_total(x):
    return x * x.sum().item()  # expect: BL101


# A lambda compiled: Dynamo traces it and inlines what its body calls (analysis/regions.py).
total_plus_one = torch.compile(lambda x: _lambda_total(x) + 1)


class _Trainer:
    """A compile helper as a method (index/builder.py): `self.maybe_compile(self._step)`."""

    def __init__(self, use_compile=True):
        self.use_compile = use_compile
        self.step = self.maybe_compile(self._step)

    def _step(self, x):
        return x * x.sum().item()  # expect: BL101

    def maybe_compile(self, fn):
        return torch.compile(fn) if self.use_compile else fn


TRAINER = _Trainer()


def _box_width(box):
    # type: (Tensor) -> int
    return int(box[2] - box[0])  # expect: BL101


@torch.compile
def first_box_width(x, detections):
    # TorchScript-era code types its helpers in PEP 484 comments: `box` is a tensor by its own.
    return x * _box_width(detections[0]["boxes"][0])


CALLS["first_box_width"] = [(torch.randn(8, 8), [{"boxes": torch.tensor([[1.0, 2.0, 5.0, 6.0]])}]) for _ in range(3)]


class _Aggregation(torch.nn.Module):
    # A module that overrides `__call__` to fill in an argument, then runs `forward` (PyG's
    # Aggregation): Dynamo traces both.
    def __call__(self, x: torch.Tensor, index: torch.Tensor, size=None):
        if size is None:
            size = int(index.max()) + 1  # expect: BL101
        return super().__call__(x, index, size)


class _SumAggregation(_Aggregation):
    def forward(self, x, index, size):
        return x.new_zeros(size, x.size(1)).index_add_(0, index, x)


class Pooled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.aggr = _SumAggregation()

    def forward(self, x, index):
        return self.aggr(x, index)


pooled = torch.compile(Pooled())
CALLS["pooled"] = [(torch.randn(8, 4), torch.tensor([0, 0, 1, 1, 2, 2, 3, 3])) for _ in range(3)]


try:
    import torch_scatter  # an optional C extension: absent here, and unknown to the linter
except ImportError:
    torch_scatter = None


def _scatter(src, index, size):
    # type: (torch.Tensor, torch.Tensor, int) -> torch.Tensor
    if torch_scatter is not None and src.is_cuda:
        return torch_scatter.scatter(src, index, 0, dim_size=size)
    return src.new_zeros(size).scatter_add_(0, index, src)


def _largest_graph(batch: torch.Tensor) -> int:
    # What `_scatter` returns is what its type says (PyG's utils), whatever the extension's path gives.
    return int(_scatter(torch.ones_like(batch), batch, 4).max())  # expect: BL101


@torch.compile
def largest_graph(x, batch):
    return x * _largest_graph(batch)


CALLS["largest_graph"] = [(torch.randn(8, 4), torch.tensor([0, 0, 1, 1, 2, 2, 3, 3])) for _ in range(3)]


@torch.compile
def random_crop(x):
    return x[: random.randint(1, 3)] + 1  # expect: BL101


# Dynamo skips the frame for a break in a loop when its scan of the bytecode after the break
# meets a jump back before a `return` (analysis/backedge.py): a failed chained comparison jumps
# straight back to the loop's head (torchvision's RandomResizedCrop.get_params), an error.
@torch.compile
def sampled_crop(x):
    for _ in range(10):
        w = int(x.shape[1] * torch.rand(1).item())  # expect: BL101
        if 0 < w <= x.shape[1]:
            return x[:, :w]
    return x


# Here the `return` comes first: Dynamo resumes after the break, a warning.
@torch.compile
def sampled_width(x):
    for _ in range(10):
        w = int(x.shape[1] * torch.rand(1).item())  # expect: BL101
        return x[:, : max(w, 1)]
    return x


_SCALE_KEYS = ("brightness", "contrast")


def _scale_by_first(x, params: Dict[str, torch.Tensor]):
    # A list of the dict's tensors, built by a comprehension: each element is a tensor.
    scales = [params[k] for k in _SCALE_KEYS]
    return x * float(scales[0])  # expect: BL101


@torch.compile
def scaled_by_first(x):
    return _scale_by_first(x, {"brightness": x[0, 0], "contrast": x[0, 1]})


# Virtual dispatch (kornia's augmentations): the base's `forward` calls `self.apply_transform`
# and `self.generate_parameters`; on a compiled subclass instance those are its overrides.
class _Augmentation(torch.nn.Module):
    def forward(self, x):
        return self.apply_transform(x, self.generate_parameters(x))

    def generate_parameters(self, x):
        return {"factor": x.mean()}

    def apply_transform(self, x, params):
        raise NotImplementedError  # every subclass overrides it: never runs


class ColorShift(_Augmentation):
    def apply_transform(self, x, params):
        return x + params["factor"].item()  # expect: BL101


class _Clipped(_Augmentation):
    def forward(self, x):
        return super().forward(x).clamp(-1, 1)

    def apply_transform(self, x, params):
        return x * params["factor"]


class Solarize(_Clipped):
    def generate_parameters(self, x):
        # reached from `_Augmentation.forward` through `super().forward` of `_Clipped`
        return {"factor": x.amax().item()}  # expect: BL101


color_shift = torch.compile(ColorShift())
solarize = torch.compile(Solarize())
