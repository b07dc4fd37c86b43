"""BL504 negatives: select with torch.where; a single value through the mask (a masked fill);
no CUDA graphs."""
import torch
from torch import nn


class MaskedFrameEncoder(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.mask_embedding = nn.Parameter(torch.zeros(dim))

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        hidden = self.proj(frames)
        quiet = frames.abs().mean(dim=-1) < 0.8
        return torch.where(quiet[:, None], self.mask_embedding.to(hidden.dtype), hidden)


encoder = torch.compile(MaskedFrameEncoder().eval().requires_grad_(False), mode="reduce-overhead")


@torch.compile(mode="reduce-overhead")
def zero_outliers(features: torch.Tensor) -> torch.Tensor:
    cleaned = features * 1.0
    cleaned[features.abs() > 3.0] = 0.0
    return cleaned


@torch.compile
def impute_missing_rows(features: torch.Tensor) -> torch.Tensor:
    filled = features * 1.0
    missing = (features < -1.0).any(dim=-1)
    filled[missing] = features.mean(dim=0)  # no CUDA graphs in the default mode
    return filled
