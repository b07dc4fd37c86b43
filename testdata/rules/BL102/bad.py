"""BL102 positives: each marked line must graph-break under real Dynamo."""
import random
from typing import Dict, List, Optional

import numpy as np
import torch


@torch.compile
def if_on_sum(x):
    if x.sum() > 0:  # expect: BL102
        return x
    return -x


@torch.compile
def ternary(x):
    return x if x.max() > 0 else -x  # expect: BL102


@torch.compile
def while_on_tensor(x):
    while x.abs().sum() < 1000:  # expect: BL102
        x = x * 2
    return x


@torch.compile
def and_operands(x):
    return (x.sum() > 0) and (x.mean() > 0)  # expect: BL102


@torch.compile
def not_any(x):
    if not (x > 100).any():  # expect: BL102
        return x
    return x * 0


class Gate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(x)
        if h.mean() > 0:  # expect: BL102
            return h
        return x


gate = torch.compile(Gate())


@torch.compile
def numpy_all(x):
    import numpy as np

    return x if np.all(x.numpy() > -100) else -x  # expect: BL102


@torch._dynamo.nonstrict_trace
def _clamped_outside_dynamo(x: torch.Tensor):
    if x.sum() > 0:  # expect: BL102
        return x * 2
    return x


@torch.compile
def through_nonstrict_trace(x):
    return _clamped_outside_dynamo(x) + 1  # expect: BL102


class ChunkConfig:
    attn_layers = ["lsh", "local"]
    lsh_attn_chunk_length = 2
    local_attn_chunk_length = 4


def _least_common_mult_chunk_len(config):
    attn_types = set(config.attn_layers)
    if attn_types == {"lsh"}:
        return config.lsh_attn_chunk_length
    if attn_types == {"local"}:
        return config.local_attn_chunk_length
    return np.lcm(config.lsh_attn_chunk_length, config.local_attn_chunk_length)


class ChunkedEncoder(torch.nn.Module):
    """Reformer-style: pad the sequence to a multiple of the chunk lengths' lcm."""

    def __init__(self):
        super().__init__()
        self.config = ChunkConfig()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        chunk_length = _least_common_mult_chunk_len(self.config)
        must_pad = x.shape[-1] % chunk_length != 0 and x.shape[-1] > 2  # expect: BL102
        if must_pad:  # expect: BL102
            x = torch.nn.functional.pad(x, (0, 1))
        out = self.proj(x)
        if must_pad:  # expect: BL102
            out = out[:, :8]
        return out


chunked_encoder = torch.compile(ChunkedEncoder())


def _excluded_blocks(block_id, to_end_block_id):
    illegal = [block_id - 1, block_id, block_id + 1]
    if block_id == to_end_block_id - 2:  # expect: BL102
        illegal.append(1)
    return illegal


@torch.compile
def random_block_row(x):
    plan_block_length = np.array([8, 16]) // 2
    illegal = _excluded_blocks(2, plan_block_length[0])
    return x + len(illegal)


@torch.compile
def plan_has_random_blocks(x):
    num_rand_blocks = np.sum([0, 2])
    return x * 2 if num_rand_blocks > 0 else x  # expect: BL102


class GlobalAttentionOutput(torch.nn.Module):
    """Longformer-style size checks: the longest sequence is counted by a static helper and
    handed back in a tuple, then checked in a list against the output's size."""

    def __init__(self):
        super().__init__()
        self.value = torch.nn.Linear(8, 8)

    @staticmethod
    def _get_lengths(attention_mask):
        lengths = attention_mask.long().sum(dim=-1)
        return lengths.max(), lengths

    def forward(self, hidden_states):
        attention_mask = hidden_states != 0
        max_length, lengths = self._get_lengths(attention_mask)
        attn_output = self.value(hidden_states)
        assert list(attn_output.size()) == [  # expect: BL102
            hidden_states.shape[0],
            max_length,
        ], f"attn_output should be of size ({hidden_states.shape[0]}, {max_length}), but is {attn_output.size()}"
        return attn_output * lengths.unsqueeze(-1)


def _get_lengths(attention_mask):
    lengths = attention_mask.long().sum(dim=-1)
    return lengths.max(), lengths


@torch.compile
def checked_output(attn_output):
    """The same count checked against the shape as a tuple (a function of its own: torch 2.11
    cannot resume after the multi-line assert above, and runs the rest of that forward eagerly)."""
    max_length, lengths = _get_lengths(attn_output != 0)
    if attn_output.shape != (attn_output.shape[0], max_length):  # expect: BL102
        raise ValueError("attn_output has the wrong shape")
    return attn_output * lengths.unsqueeze(-1)


global_attention_output = torch.compile(GlobalAttentionOutput())


@torch.compile
def gated(x, gate):
    """Its file calls it with a tensor `gate` once: the `if` tests a tensor there."""
    if gate:  # expect: BL102
        return x * 2
    return x


def scenario_gated_calls():
    x = torch.randn(8, 8)
    gated(x, True)
    gated(x, x.sum() > 0)


@torch.compile
def clamp_half_overflow(x):
    """Only a float16 input evaluates the tensor test: these calls pass float16."""
    if x.dtype == torch.float16 and not torch.isfinite(x).all():  # possible: BL102 (fp16 inputs here)
        return x.clamp(-1, 1)
    return x * 2


class DroppedLayer(torch.nn.Module):
    """LayerDrop: the tensor test runs only in training (this module is compiled in training mode)."""

    def __init__(self, layerdrop=0.1):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)
        self.layerdrop = layerdrop

    def forward(self, x):
        if self.training:
            dropout_probability = torch.rand([])
            if dropout_probability < self.layerdrop:  # expect: BL102 (a training call)
                return x
        return self.proj(x)


dropped_layer = torch.compile(DroppedLayer())


class StoredWeights(torch.nn.Module):
    """A tensor kept on the module through a local of `__init__` (kornia's ImageSequential)."""

    def __init__(self, weights=None):
        super().__init__()
        w = torch.as_tensor(weights) if weights is not None else torch.ones(8)
        if not w.is_floating_point():
            w = w.to(torch.get_default_dtype())
        self.w = w

    def forward(self, x):
        if self.w.sum() > 0:  # expect: BL102
            return x * 2
        return x


stored_weights = torch.compile(StoredWeights([1, 2, 3, 4, 5, 6, 7, 8]))


class ArchCode(torch.nn.Module):
    """MONAI's DiNTS: the code built by torch and moved in one expression, kept through a local."""

    def __init__(self):
        super().__init__()
        code = torch.ones(4).to("cpu")
        self.code = code

    def forward(self, x):
        if self.code[0]:  # expect: BL102
            return x * 2
        return x


arch_code = torch.compile(ArchCode())

CALLS = {"gated": [(torch.randn(8, 8), torch.randn(8, 8).sum() > 0) for _ in range(3)],
         "clamp_half_overflow": [(torch.randn(8, 8).half(),) for _ in range(3)]}


# What takes a slice in two dimensions is a tensor (or an array, traced as one), also where the
# analysis cannot tell what it is: here the targets come back from a table of transforms.
TRANSFORMS = {"identity": lambda images, targets: (images, targets)}


@torch.compile
def degenerate_boxes(images: torch.Tensor, targets: list):
    images, targets = TRANSFORMS["identity"](images, targets)
    for target in targets:
        boxes = target["boxes"]
        degenerate = boxes[:, 2:] <= boxes[:, :2]
        if degenerate.any():  # expect: BL102
            images = images - 1
    return images + 1


CALLS["degenerate_boxes"] = [(torch.randn(8, 8), [{"boxes": torch.tensor([[1.0, 2.0, 5.0, 6.0]])}])
                             for _ in range(3)]


@torch.compile
def random_depth(x):
    # Dynamo traces `random.randint` into the graph: the draw is a value there, not a Python int.
    if random.randint(0, 3) > 0:  # expect: BL102
        x = x * 2
    return x + 1


@torch.compile
def too_many_labels(x, targets: Optional[List[Dict[str, torch.Tensor]]] = None):
    # What the annotation says the container holds: each `target["labels"]` is a tensor.
    if targets is not None:
        for target in targets:
            if target["labels"].max() > 3:  # expect: BL102
                x = x * 2
    return x + 1


@torch.compile
def jiggled(x: torch.Tensor, params: Dict[str, torch.Tensor]):
    factor = params["brightness"]
    if (factor != 1.0).any():  # expect: BL102
        x = x * factor
    return x


CALLS["too_many_labels"] = [(torch.randn(8, 8), [{"labels": torch.tensor([1, 5])}]) for _ in range(3)]
CALLS["jiggled"] = [(torch.randn(8, 8), {"brightness": torch.rand(1) + 0.5}) for _ in range(3)]


# Dynamo gives up on a frame for a break in a loop only when its scan of the code after the break
# meets a jump back before a `return` (backedge.py). Here the arm returns first: Dynamo resumes
# after the break, a warning.
@torch.compile
def first_positive(x, ys):
    for y in ys:
        if (x * y).sum() > 0:  # expect: BL102
            return x + y
    return x


# Here the first arm ends the loop's pass with a jump back, laid out before the `elif`'s return:
# Dynamo skips the function ("graph break in loop", GB7000), an error.
@torch.compile
def first_wide(x, ys):
    for y in ys:
        if (x * y).sum() > 0:  # expect: BL102
            x = x + y
        elif x.shape[0] > 10:
            return x
    return x


def _gated_step(x, y):
    if (x * y).sum() > 0:  # expect: BL102
        x = x + y
    return x


# The same scan runs in each caller that inlined the breaking function, from its call: this
# loop returns the helper's result, so Dynamo resumes (the helper breaks in a frame of its own).
@torch.compile
def first_step(x, ys):
    for y in ys:
        return _gated_step(x, y)
    return x


CALLS["first_positive"] = [(torch.randn(8, 8), [torch.randn(8, 8), torch.randn(8, 8)]) for _ in range(3)]
CALLS["first_wide"] = [(torch.randn(8, 8), [torch.randn(8, 8), torch.randn(8, 8)]) for _ in range(3)]
CALLS["first_step"] = [(torch.randn(8, 8), [torch.randn(8, 8), torch.randn(8, 8)]) for _ in range(3)]


_RNG = random.Random(0)


@torch.compile
def rng_depth(x):
    # A `random.Random` instance's draws are traced like `random.randint`'s: values in the graph.
    if _RNG.randrange(0, 4) > 1:  # expect: BL102
        x = x * 2
    return x + 1


class RandomFlip(torch.nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p
        self.rng = random.Random()

    def forward(self, x):
        if self.rng.random() < self.p:  # expect: BL102
            return x.flip(0)
        return x


random_flip = torch.compile(RandomFlip())


_FACTOR_KEYS = ("brightness", "contrast")


def _jitter(x, params: Dict[str, torch.Tensor]):
    # kornia's ColorJitter: the factors read from the parameter dict through a generator.
    factors = tuple(params[k] for k in _FACTOR_KEYS)
    if (factors[0] != 1.0).any():  # expect: BL102
        x = x * factors[0]
    return x


@torch.compile
def jittered(x):
    return _jitter(x, {"brightness": x[0, 0] + 1.5, "contrast": x[0, 1]})


def _shift_each(x, params: Dict[str, torch.Tensor]):
    for factor in [params[k] for k in _FACTOR_KEYS]:
        if factor.sum() > 0:  # expect: BL102
            x = x + 1
    return x


@torch.compile
def shifted_each(x):
    return _shift_each(x, {"brightness": x[0], "contrast": x[1]})


def _gates(x):
    return torch.sigmoid(x), torch.tanh(x)


def _mix(a, b):
    if a[0, 0] > 0.5:  # expect: BL102
        return b
    return a


@torch.compile
def mixed(x):
    return _mix(*_gates(x))  # the tuple `_gates` returns, unpacked: `a` is a tensor


def _named_gates(x):
    return {"a": torch.sigmoid(x), "b": torch.tanh(x)}


def _mix_by_name(a, b):
    if b[0, 0] > 0:  # expect: BL102
        return a
    return b


@torch.compile
def mixed_by_name(x):
    return _mix_by_name(**_named_gates(x))


class StarInputs(torch.nn.Module):
    """Inputs taken as `*args` (kornia's augmentation containers) and handed to a helper."""

    def _first_positive(self, inputs):
        for t in inputs:
            if t.sum() > 0:  # expect: BL102
                return t
        return inputs[0]

    def forward(self, *args):
        return self._first_positive(args)


star_inputs = torch.compile(StarInputs())
