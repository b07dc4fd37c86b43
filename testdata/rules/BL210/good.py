"""BL210 negatives: dynamic shapes asked for, so new batch sizes reuse one graph."""
import torch


@torch.compile(dynamic=True)
def any_shape(x):
    return torch.relu(x) * 2


CALLS = {"any_shape": [(torch.randn(8, 16),), (torch.randn(4, 16),), (torch.randn(2, 16),)]}


def project(x):
    return x @ x.T


def scenario_one_shape_only():
    # dynamic=False and no call that shows a shape changing: nothing to say, nothing recompiles.
    static = torch.compile(project, dynamic=False, backend="eager")
    x = torch.randn(4, 4)
    for _ in range(3):
        static(x)
