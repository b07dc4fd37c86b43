"""BL112 positives: each marked line must graph-break under real Dynamo."""
import torch


@torch.compile
def skip_in_inference(x: torch.Tensor):
    if x.is_inference():  # expect: BL112
        return x
    return x * 2


@torch.compile
def mode_switch(x):
    if torch.is_inference_mode_enabled():  # expect: BL112
        return x
    return x + 1
