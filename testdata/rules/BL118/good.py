"""BL118 negatives: the same questions kept in tensors, or asked of shapes."""
import torch


@torch.compile
def same_weights(x):
    y = x.clone()
    return torch.where((x == y).all(), x, x + y)


@torch.compile
def close_enough(x):
    return torch.where(torch.isclose(x, x * 1.0).all(), x, -x)


@torch.compile
def widest_first(x: torch.Tensor):
    parts = [x[:2], x[2:]]
    parts = sorted(parts, key=lambda part: part.shape[0])
    return torch.cat(parts)


@torch.compile
def smallest_norm(x: torch.Tensor):
    return x * min(x[0].norm(), x[1].norm())


@torch.compile
def crop_to_half(x: torch.Tensor):
    return x[slice(0, x.shape[0] // 2)]


@torch.compile
def storage_elements(x: torch.Tensor):
    return x * x.untyped_storage().size()


@torch.compile
def any_wide(x: torch.Tensor):
    halves = (x[:4], x[4:])
    if any(h.shape[0] > 2 for h in halves):
        return x + 1
    return x


def same_outside(x, y):
    return torch.equal(x, y)  # not compiled
