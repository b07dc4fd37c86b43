"""BL504 positives: on CUDA with mode="reduce-overhead", a boolean-mask assignment of a tensor
falls back to ATen index_put_, which runs outside CUDA graphs (graph partitioning) or makes
Inductor skip them. (Proven on a GPU by tests/test_gpu_cudagraphs.py; on the CPU they must
simply not break.)"""
import torch
from torch import nn


class MaskedFrameEncoder(nn.Module):
    """Replaces quiet frames with a learned embedding (here served for inference)."""

    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.mask_embedding = nn.Parameter(torch.zeros(dim))

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        hidden = self.proj(frames)
        quiet = frames.abs().mean(dim=-1) < 0.8
        hidden[quiet] = self.mask_embedding.to(hidden.dtype)  # expect: BL504
        return hidden


encoder = torch.compile(MaskedFrameEncoder().eval().requires_grad_(False), mode="reduce-overhead")


@torch.compile(mode="reduce-overhead")
def impute_missing_rows(features: torch.Tensor) -> torch.Tensor:
    filled = features * 1.0
    missing = (features < -1.0).any(dim=-1)
    filled[missing] = features.mean(dim=0)  # expect: BL504
    return filled
