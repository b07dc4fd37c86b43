"""BL601 positives: each marked line breaks (or recompiles) under real Dynamo."""
import torch


@torch.compile
def case(x):
    return x  # expect: BL601
