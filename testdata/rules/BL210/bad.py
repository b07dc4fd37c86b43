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


def scaled_update(p, lr: float):
    return p - lr * p.sign()


def scenario_once_per_parameter():
    # An optimizer's step (timm's Kron is written so): one call per parameter, and each distinct
    # parameter shape is a compile of its own under dynamic=False.
    update = torch.compile(scaled_update, dynamic=False, backend="eager")  # expect: BL210
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 3))
    for p in model.parameters():
        update(p.detach(), 0.1)
