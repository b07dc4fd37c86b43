"""BL501 positives: on CUDA with mode="reduce-overhead", Inductor skips CUDA graphs here.
(Proven on a GPU by tests/gpu_cudagraphs.py; on the CPU they must simply not break.)"""
import torch


@torch.compile(mode="reduce-overhead")
def add_in_place(x):
    x.add_(1)  # expect: BL501
    return x * 2


@torch.compile(mode="reduce-overhead")
def write_slice(x):
    x[0] = 0  # expect: BL501
    return x.sum(0)
