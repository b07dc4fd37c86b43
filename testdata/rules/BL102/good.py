"""BL102 negatives: branches on shapes, modes and Python values are guards, not breaks."""
import math
import random
from typing import Dict, List

import numpy as np
import torch

USE_BIAS = True


@torch.compile
def on_dim(x):
    if x.dim() == 2:
        return x + 1
    return x


@torch.compile
def on_shape(x):
    if x.shape[0] > 4 and x.size(1) == 8:
        return x * 2
    return x


@torch.compile
def on_constant(x):
    return x + 1 if USE_BIAS else x


@torch.compile
def on_none(x, mask=None):
    if mask is not None:
        x = x * mask
    return x


@torch.compile
def with_where(x):
    return torch.where(x.sum() > 0, x, -x)


class Dropout(torch.nn.Module):
    def forward(self, x):
        if self.training and isinstance(x, torch.Tensor):
            return x * 0.5
        return x


dropout = torch.compile(Dropout())


@torch.compile
def asserts_on_tensors_are_traced(x):
    # torch 2.13 turns a tensor assert into an async assert: no graph break.
    assert x.sum() > -1000
    assert (x > -1000).all()
    return x + 1


def is_torchdynamo_compiling():
    # The wrapper transformers and diffusers keep around torch.compiler.is_compiling().
    return torch.compiler.is_compiling()


@torch.compile
def expand_padding_mask(mask):
    # Dynamo knows `is_tracing` is True while it traces, so `not is_tracing and ...` never
    # evaluates the tensor test (transformers' _prepare_4d_attention_mask_for_sdpa).
    is_tracing = torch.jit.is_tracing() or isinstance(mask, torch.fx.Proxy) or is_torchdynamo_compiling()
    if not is_tracing and torch.all(mask == 1):
        return None
    return mask[:, None, None, :].float()


@torch.compile
def skips_eager_checks(x):
    if not torch.compiler.is_compiling() and x.isnan().any():
        raise ValueError("NaN in the input")
    return x * 2
@torch.compile
def pad_to_python_lcm(x):
    chunk_length = math.lcm(2, 4)  # Python ints: a guard on the shape, not a break
    if x.shape[-1] % chunk_length != 0:
        x = torch.nn.functional.pad(x, (0, chunk_length - x.shape[-1] % chunk_length))
    return x * np.sqrt(chunk_length)


class BlockPlan(torch.nn.Module):
    """NumPy branches in __init__ run once, in Python: only forward is compiled."""

    def __init__(self, plan_num_rand_blocks=(0, 2)):
        super().__init__()
        total = np.sum(plan_num_rand_blocks)
        self.use_random = bool(total > 0)
        if np.lcm(2, 4) > 2:
            self.scale = 2.0
        else:
            self.scale = 1.0

    def forward(self, x):
        if self.use_random:
            return x * self.scale
        return x


block_plan = torch.compile(BlockPlan())


@torch.compile
def plan_type_checks(x):
    offsets = np.arange(4)
    if isinstance(offsets, np.ndarray) and offsets.shape[0] == 4:
        return x + torch.from_numpy(offsets).sum()
    return x


def _excluded_blocks(block_id, to_end_block_id):
    illegal = [block_id - 1, block_id, block_id + 1]
    if block_id == to_end_block_id - 2:  # every caller passes Python ints: a guard
        illegal.append(1)
    return illegal


@torch.compile
def random_block_row_from_ints(x):
    num_blocks = x.shape[-1] // 2
    illegal = _excluded_blocks(2, num_blocks)
    return x + len(illegal)
class MixerConfig:
    """Settings stored from the constructor's defaults, as configuration classes do."""

    def __init__(self, width=8, gated=False, norm_type="layer"):
        self.width = width
        self.gated = gated
        self.norm_type = norm_type


class GatedMixer(torch.nn.Module):
    """Built only with `gated=True`, which the default configuration does not set."""

    def forward(self, x):
        if x.amax() > 0:  # possible: BL102
            return x * torch.sigmoid(x)
        return x


def rms_norm(x):
    # Stops on silent input: a Python `if` on a tensor, run only for norm_type="rms".
    if x.abs().sum() == 0:  # possible: BL102
        return x
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


class Mixer(torch.nn.Module):
    def __init__(self, config: MixerConfig):
        super().__init__()
        self.config = config
        self.mix = GatedMixer() if config.gated else torch.nn.Linear(config.width, config.width)

    def _normalize(self, x):
        if self.config.norm_type == "rms":
            return rms_norm(x)  # the default norm_type is "layer"
        elif self.config.norm_type == "layer":
            x = torch.nn.functional.layer_norm(x, (self.config.width,))
        else:
            # Any other norm_type: rescale only large input, a Python `if` on a tensor in this arm.
            if x.abs().amax() > 1:  # possible: BL102
                x = x / x.abs().amax()
        return x

    def forward(self, x):
        return self.mix(self._normalize(x))


mixer = torch.compile(Mixer(MixerConfig()))


class StaticAttentionOutput(torch.nn.Module):
    """The same size checks against an int from the shape, handed back in the helper's tuple:
    the list comparison is decided while tracing (a guard), no break."""

    def __init__(self):
        super().__init__()
        self.value = torch.nn.Linear(8, 8)

    @staticmethod
    def _get_lengths(hidden_states):
        lengths = (hidden_states != 0).long().sum(dim=-1)
        return hidden_states.shape[-1], lengths

    def forward(self, hidden_states):
        max_length, lengths = self._get_lengths(hidden_states)
        attn_output = self.value(hidden_states)
        assert list(attn_output.size()) == [hidden_states.shape[0], max_length], "wrong size"
        if attn_output.shape != (hidden_states.shape[0], max_length):
            raise ValueError("attn_output has the wrong shape")
        return attn_output * lengths.unsqueeze(-1)


static_attention_output = torch.compile(StaticAttentionOutput())


@torch.compile
def maybe_residual(x, add_residual):
    """`add_residual` is a parameter of the entry point, but every call in this file passes a
    constant bool: Dynamo specialises on it, the `if` is not a tensor test."""
    y = x * 2
    if add_residual:
        y = y + x
    return y


def scenario_residual_calls():
    x = torch.randn(8, 8)
    maybe_residual(x, True)
    maybe_residual(x * 2, add_residual=True)


# The runner calls compiled functions too: with the same constant as the file's own calls.
@torch.compile
def clamp_half_overflow(x):
    """float32 calls: `x.dtype == torch.float16` is false while tracing, the tensor test never runs."""
    if x.dtype == torch.float16 and not torch.isfinite(x).all():  # possible: BL102 (fp16 only)
        return x.clamp(-1, 1)
    return x * 2


class DroppedLayer(torch.nn.Module):
    def __init__(self, layerdrop=0.1):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)
        self.layerdrop = layerdrop

    def forward(self, x):
        if self.training:
            dropout_probability = torch.rand([])
            if dropout_probability < self.layerdrop:  # possible: BL102 (training only; compiled for eval here)
                return x
        return self.proj(x)


dropped_layer = torch.compile(DroppedLayer().eval())

CALLS = {"maybe_residual": [(torch.randn(8, 8), True) for _ in range(3)]}


class PositionBias(torch.nn.Module):
    # Takes sequence lengths (x-transformers' AlibiPositionalBias): called through a module
    # passed as an argument, with ints read off shapes. No tensor is tested.
    def __init__(self):
        super().__init__()
        self.register_buffer("bias", torch.zeros(2, 16, 16), persistent=False)

    def forward(self, i, j):
        if self.bias.shape[-1] >= j and self.bias.shape[-2] >= i:
            return self.bias[..., -i:, -j:]
        return torch.zeros(2, i, j)


class BiasedAttention(torch.nn.Module):
    def forward(self, q, k, rel_pos=None):
        i, j = tuple(t.shape[-2] for t in (q, k))
        sim = q @ k.transpose(-1, -2)
        if rel_pos is not None:
            sim = sim + rel_pos(i, j)
        return sim.softmax(dim=-1)


class BiasedLayers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = BiasedAttention()
        self.rel_pos = PositionBias()

    def forward(self, x):
        return self.attn(x, x, rel_pos=self.rel_pos)


biased_layers = torch.compile(BiasedLayers())


@torch.compile
def random_scale(x):
    return x * random.uniform(0.5, 1.5)  # a traced draw in arithmetic: no branch, no break


@torch.compile
def first_size(x, sizes: List[int]):
    if sizes[0] > 1:  # a list of Python ints: a guard, not a break
        x = x * 2
    return x


class StoredThreshold(torch.nn.Module):
    """A Python number kept through a local of `__init__`; another method's local of that name
    is a tensor, and says nothing of it."""

    def __init__(self, threshold=0.5):
        super().__init__()
        limit = float(threshold)
        self.limit = limit

    def forward(self, x):
        if self.limit > 0.1:  # a Python float: a guard, not a break
            x = x * 2
        return self.shifted(x)

    def shifted(self, x):
        limit = torch.ones(1)
        return x - limit


stored_threshold = torch.compile(StoredThreshold())


CALLS["first_size"] = [(torch.randn(8, 8), [2, 3]) for _ in range(3)]


_RNG = random.Random(0)


@torch.compile
def rng_scale(x):
    return x * _RNG.uniform(0.5, 1.5)  # a traced draw of a `random.Random`: arithmetic, no break


_FACTOR_KEYS = ("brightness", "contrast")


def _sizes_first(x, params: Dict[str, torch.Tensor]):
    sizes = [params[k].shape[0] for k in _FACTOR_KEYS]  # shape ints, not tensors
    if sizes[0] > 1:
        return x * 2
    return x


@torch.compile
def sizes_first(x):
    return _sizes_first(x, {"brightness": x, "contrast": x})


def _shapes(x):
    return x.shape[0], x.shape[1]


def _area_flag(h, w):
    if h * w > 16:  # shape ints, unpacked from `_shapes(x)`: a guard, not a break
        return 1
    return 0


@torch.compile
def area_flag(x):
    return x * _area_flag(*_shapes(x))


class RelativeBias(torch.nn.Module):
    # x_transformers' AlibiPositionalBias: its parent passes shape ints, which Dynamo specialises
    # (tests/test_arguments.py holds breaklint to the same file with no compile call seen).
    def __init__(self, heads):
        super().__init__()
        self.slopes = torch.nn.Parameter(torch.ones(heads, 1, 1))

    def forward(self, i, j):
        if i > j:
            i = j
        return self.slopes * torch.arange(j)[None, None, :i].float()


class AttentionWithBias(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rel_pos = RelativeBias(2)

    def forward(self, x):
        i, j = x.shape[-2], x.shape[-1]
        return x + self.rel_pos(i, j)


attention_with_bias = torch.compile(AttentionWithBias())


# transformers' Swin and Beit: sizes annotated `tuple[int, int]` (computed by the parent from
# shapes), unpacked and tested against a window size the configuration holds. Python ints to
# Dynamo: guards, no break. (Static side: tests/test_arguments.py, with every module's forward
# assumed compiled and the size helper in another file.)
class _WindowConfig:
    window_size = 4
    patch_size = 2


class ShiftedWindow(torch.nn.Module):
    def __init__(self, config):
        super().__init__()
        self.window_size = config.window_size
        self.patch_size = config.patch_size

    def shift_for(self, input_resolution):
        if min(input_resolution) <= self.window_size:
            return 0
        # (what Swin's TorchScript branch does: evidence of a tensor where nothing else is known)
        return torch.min(torch.tensor(input_resolution)) if torch.jit.is_tracing() else self.window_size // 2

    def forward(self, x, input_dimensions: tuple[int, int], resolution: tuple[int, int] | None = None):
        height, width = resolution
        window = (height // self.patch_size, width // self.patch_size)
        if window[0] > 1:
            x = x + 1
        return torch.roll(x, self.shift_for(input_dimensions), dims=0)


class SwinStage(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = ShiftedWindow(_WindowConfig())

    def forward(self, x):
        return self.block(x, (x.shape[0], x.shape[1]), resolution=(x.shape[0], x.shape[1]))


swin_stage = torch.compile(SwinStage())
