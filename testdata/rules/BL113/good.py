"""BL113 negatives: gradients decided outside, detaching inside."""
import torch


@torch.compile
def detached(x: torch.Tensor):
    y = (x * 2).detach()
    return y.requires_grad_(False) + torch.zeros(8, requires_grad=False)


def step(x):
    x.requires_grad_()  # outside the compiled code
    return detached(x)
