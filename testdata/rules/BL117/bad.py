"""BL117 positives: each marked line must graph-break under real Dynamo."""
import torch


@torch.compile
def random_ints(x: torch.Tensor):
    return x.clone().random_(0, 10)  # expect: BL117


@torch.compile
def grows(x: torch.Tensor):
    y = x.clone()
    y.resize_(4, 16)  # expect: BL117
    return y


@torch.compile
def reshaped_like(x: torch.Tensor):
    y = x.clone()
    y.resize_as_(torch.zeros(4, 16))  # expect: BL117
    return y


@torch.compile
def rebinds_storage(x: torch.Tensor):
    y = x.clone()
    y.set_(torch.zeros(64).untyped_storage(), 0, (8, 8), (8, 1))  # expect: BL117
    return y
