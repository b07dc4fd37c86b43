"""BL121 negatives: exceptions caught inside the frame, and error paths not taken."""
import torch


@torch.compile
def caught(x):
    try:
        raise KeyError("missing")
    except KeyError:
        return x * 2


@torch.compile
def validates_width(x):
    if x.shape[-1] > 64:
        raise ValueError("too wide")  # an error path these inputs do not take
    return x + 1


@torch.compile
def asserts_outside_with(x):
    assert x.shape[0] == 8
    return x * 3


def _reduce(src, how):
    if how == "sum":
        return src.sum(0)
    if how == "mean":
        return src.mean(0)
    raise ValueError(f"invalid reduce {how!r}")  # the fall-through of a dispatch these calls do not take


@torch.compile
def reduced(x):
    return _reduce(x, "mean") + 1


# A base's placeholder that every subclass overrides: the compiled instances run the overrides
# (virtual dispatch through `self`), never the `raise`.
class _Transform(torch.nn.Module):
    def forward(self, x):
        return self.apply_transform(x) * 2

    def apply_transform(self, x):
        """Overridden by every subclass."""
        raise NotImplementedError(f"{type(self).__name__} does not implement apply_transform")


class Flip(_Transform):
    def apply_transform(self, x):
        return x.flip(-1)


class Shift(_Transform):
    def apply_transform(self, x):
        return x + 1


flip = torch.compile(Flip())
shift = torch.compile(Shift())


# A subclass that refuses a hook its base implements (transformers' modular files delete a
# method so): where the instance's class is not known, its `raise` is not what the call runs.
class _Embedding(torch.nn.Module):
    def forward(self, x):
        return self.interpolate(x) + 1

    def interpolate(self, x):
        return x * 2


class FixedEmbedding(_Embedding):
    def interpolate(self, x):
        raise AttributeError("FixedEmbedding does not interpolate")


embedding = torch.compile(_Embedding())
