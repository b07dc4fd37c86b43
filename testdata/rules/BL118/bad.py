"""BL118 positives: each marked line breaks under real Dynamo."""
import random

import torch


@torch.compile
def same_weights(x):
    y = x.clone()
    if torch.equal(x, y):  # expect: BL118
        return x
    return x + y


@torch.compile
def close_enough(x):
    reference = x * 1.0
    if torch.allclose(x, reference, atol=1e-5):  # expect: BL118
        return x
    return reference


@torch.compile
def nonzero_total(x: torch.Tensor):
    if x.sum().is_nonzero():  # expect: BL118
        return x + 1
    return x


@torch.compile
def smallest_first(x: torch.Tensor):
    norms = sorted([x[0].norm(), x[1].norm()])  # expect: BL118
    return x * norms[0]


@torch.compile
def ordered_rows(x: torch.Tensor):
    rows = [x[0], x[1], x[2]]
    rows = sorted(rows, key=lambda row: row.sum())  # expect: BL118
    return torch.stack(rows)


@torch.compile
def crop_to_count(x: torch.Tensor):
    count = (x[:, 0] > 0).sum()
    return x[slice(0, count)]  # expect: BL118


@torch.compile
def shares_storage(x: torch.Tensor):
    flat = x.view(-1)
    if x.data_ptr() == flat.data_ptr():  # expect: BL118
        return flat * 2
    return flat


@torch.compile
def storage_bytes(x: torch.Tensor):
    return x * x.untyped_storage().nbytes()  # expect: BL118


@torch.compile
def any_positive(x: torch.Tensor):
    halves = (x[:4], x[4:])
    if any(h.sum() > 0 for h in halves):  # expect: BL118
        return x + 1
    return x


@torch.compile
def random_width(x: torch.Tensor):
    width = random.randint(2, 5)
    return x.sum() + torch.randn(width).sum()  # expect: BL118
