"""BL104 negatives: static-shape alternatives and writes through a mask."""
import torch


@torch.compile
def where_three_args(x):
    return torch.where(x > 0, x, 0)


@torch.compile
def multiply_mask(x):
    return x * (x > 0)


@torch.compile
def write_through_mask(x):
    y = x.clone()
    y[y < 0] = 0
    return y


@torch.compile
def int_index(x):
    return x[0] + x[:, 1]
