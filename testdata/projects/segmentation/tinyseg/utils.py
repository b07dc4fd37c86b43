"""Helpers the model calls from its forward: some break the graph, some only look as if they would."""
import torch


def describe(name, x, verbose=False):
    # A debugging print that is left on: it runs on every step, inside the compiled forward.
    print(f"{name}: {tuple(x.shape)}")  # expect: BL106
    return x


def foreground_fraction(mask):
    # Counting foreground pixels by index: nonzero has a data-dependent output shape.
    idx = torch.nonzero(mask)  # expect: BL104
    return idx.shape[0] / mask.numel()


def safe_normalize(x, eps=1e-6):
    # Looks like a branch, but tests a Python float: traced, no break.
    if eps > 0:
        return x / (x.norm(dim=1, keepdim=True) + eps)
    return x


def num_pixels(x):
    # Shapes are ints Dynamo knows: no break.
    return x.shape[-1] * x.shape[-2]
