"""BL401 negatives: ops Inductor lowers (matmuls go to extern kernels, not fallbacks)."""
import torch

BACKEND = "inductor"  # judged at the Inductor stage (C++ on CPU)


@torch.compile
def attention_scores(x):
    return x @ x.T
