"""BL210 positives: the marked function recompiles for every new batch size."""
import torch


@torch.compile(dynamic=False)  # expect: BL210
def per_shape(x):
    return torch.relu(x) * 2


CALLS = {"per_shape": [(torch.randn(8, 16),), (torch.randn(4, 16),), (torch.randn(2, 16),)]}


def shapes(x):
    return x.softmax(-1)


def scenario_call_form():
    static = torch.compile(shapes, dynamic=False, backend="eager")  # expect: BL210
    for n in (8, 4, 2):
        static(torch.randn(n, 16))
