"""BL601 negatives: nothing here breaks under real Dynamo, and nothing is flagged."""
import torch


@torch.compile
def clean(x):
    return x + 1
