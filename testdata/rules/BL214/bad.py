"""BL214 positives: a loop feeds a compiled function growing sequence lengths; Dynamo recompiles
once, then treats the dimension as dynamic (automatic dynamic shapes, torch 2.13); sizes 0 and 1
are specialised even then, and even under dynamic=True."""
import torch

IDS = torch.randn(2, 32)
CALLS = {"step": [], "step_from_zero": [], "dynamic_step": []}


@torch.compile
def step(x):
    return x.softmax(-1)


def scenario_growing_prefix():
    for t in range(8, 16):
        step(IDS[:, :t])  # expect: BL214 recompiles=1 guard="size mismatch at index 1"


@torch.compile
def step_from_zero(x):
    return x.softmax(-1)


@torch.compile(dynamic=True)
def dynamic_step(x):
    return x.softmax(-1)


def scenario_growing_from_an_empty_prefix():
    for t in range(6):
        step_from_zero(IDS[:, :t])  # expect: BL214 recompiles=2 guard="size mismatch at index 1"


def scenario_dynamic_from_one_token():
    for t in range(1, 8):
        dynamic_step(IDS[:, :t])  # expect: BL214 recompiles=1 guard="size mismatch at index 1"
