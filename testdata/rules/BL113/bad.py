"""BL113 positives: each marked line must graph-break under real Dynamo."""
import torch


@torch.compile
def makes_input_trainable(x: torch.Tensor):
    x.requires_grad_(True)  # expect: BL113
    return x * 2


@torch.compile
def trainable_intermediate(x: torch.Tensor):
    y = x * 2
    y.requires_grad_()  # expect: BL113
    return y


@torch.compile
def flips_flag(x: torch.Tensor):
    y = x * 2
    y.requires_grad = True  # expect: BL113
    return y + 1


@torch.compile
def new_leaf(x):
    bias = torch.zeros(8, requires_grad=True)  # expect: BL113
    return x + bias
