"""BL501 negatives: no input is written, or no CUDA graphs are recorded."""
import torch


@torch.compile(mode="reduce-overhead")
def new_tensor(x):
    y = x + 1
    y.mul_(2)  # an intermediate, not an input
    return y


@torch.compile
def in_place_without_cudagraphs(x):
    x.add_(1)
    return x * 2
