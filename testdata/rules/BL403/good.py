"""BL403 negatives: the same math as plain torch code, which Inductor fuses."""
import torch

BACKEND = "inductor"  # judged at the Inductor stage (C++ on CPU)


def scaled_rows(x):
    return x * x.sum(dim=1, keepdim=True)


@torch.compile
def fused(x):
    return scaled_rows(x) @ x.T
