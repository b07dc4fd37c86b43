"""BL214 negatives: the size does not follow the loop variable, or the compile is dynamic."""
import torch

IDS = torch.randn(2, 32)
CALLS = {"step": [], "dynamic_step": []}


@torch.compile
def step(x):
    return x.softmax(-1)


@torch.compile(dynamic=True)
def dynamic_step(x):
    return x.softmax(-1)


def scenario_fixed_window():
    for t in range(8, 16):
        step(IDS[:, :8] * t)


def scenario_dynamic_from_the_start():
    for t in range(8, 16):
        dynamic_step(IDS[:, :t])  # from 2: no size Dynamo specialises
