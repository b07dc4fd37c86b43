"""BL210 negatives: dynamic shapes asked for, so new batch sizes reuse one graph."""
import torch


@torch.compile(dynamic=True)
def any_shape(x):
    return torch.relu(x) * 2


CALLS = {"any_shape": [(torch.randn(8, 16),), (torch.randn(4, 16),), (torch.randn(2, 16),)]}
