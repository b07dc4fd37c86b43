"""BL117 negatives: traced equivalents."""
import torch


@torch.compile
def equivalents(x):
    ints = torch.randint_like(x, 10)
    grown = x.new_zeros(4, 16)
    return ints.sum() + grown.sum() + x.reshape(4, 16).sum()


def shared_outside(x: torch.Tensor):
    y = x.clone()
    y.share_memory_()  # not compiled
    return y
