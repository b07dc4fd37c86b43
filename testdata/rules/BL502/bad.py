"""BL502 positives: on CUDA with mode="reduce-overhead", Inductor skips CUDA graphs here.
(Proven on a GPU by tests/gpu_cudagraphs.py; on the CPU they must simply not break.)"""
import torch


@torch.compile(mode="reduce-overhead")
def to_host(x):
    return (x * 2).cpu()  # expect: BL502


@torch.compile(mode="reduce-overhead")
def host_index(x):
    idx = torch.arange(x.shape[0])  # expect: BL502
    return x[idx.to(x.device)] * 2
