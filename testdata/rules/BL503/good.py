"""BL503 negatives: both branches computed and selected with torch.where; torch.cond without
CUDA graphs."""
import torch
from torch import nn


class GatedResidual(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        update = self.proj(hidden)
        gate = update.abs().mean() > 0.5
        return torch.where(gate, hidden + self.out(torch.relu(update)), hidden + update)


block = torch.compile(GatedResidual(), mode="reduce-overhead")


@torch.compile(mode="reduce-overhead")
def clip_update(grad: torch.Tensor) -> torch.Tensor:
    norm = grad.norm()
    return torch.where(norm > 1.0, grad / norm, grad)


@torch.compile
def clip_update_default_mode(grad: torch.Tensor) -> torch.Tensor:
    norm = grad.norm()
    return torch.cond(norm > 1.0, lambda g: g / norm, lambda g: g.clone(), (grad,))
