"""BL214 positive: a loop feeds a compiled function growing sequence lengths; Dynamo recompiles
once, then treats the dimension as dynamic (automatic dynamic shapes, torch 2.13)."""
import torch

IDS = torch.randn(2, 32)
CALLS = {"step": []}


@torch.compile
def step(x):
    return x.softmax(-1)


def scenario_growing_prefix():
    for t in range(8, 16):
        step(IDS[:, :t])  # expect: BL214 recompiles=1 guard="size mismatch at index 1"
