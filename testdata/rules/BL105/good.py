"""BL105 negatives."""
import torch


def debug_outside(x):
    breakpoint()
    return x


@torch.compile
def clean(x):
    return (x + 1) * 2
