"""BL503 positives: on CUDA with mode="reduce-overhead", torch.cond makes Inductor skip CUDA
graphs for the whole graph ("control flow operator: torch.cond.").
(Proven on a GPU by tests/test_gpu_cudagraphs.py; on the CPU they must simply not break.)"""
import torch
from torch import nn


class GatedResidual(nn.Module):
    """Skips the expensive path when the update is small, without a graph break."""

    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        update = self.proj(hidden)
        return torch.cond(  # expect: BL503
            update.abs().mean() > 0.5,
            lambda u, h: h + self.out(torch.relu(u)),
            lambda u, h: h + u,
            (update, hidden),
        )


block = torch.compile(GatedResidual(), mode="reduce-overhead")


@torch.compile(mode="reduce-overhead")
def clip_update(grad: torch.Tensor) -> torch.Tensor:
    norm = grad.norm()
    return torch.cond(norm > 1.0, lambda g: g / norm, lambda g: g.clone(), (grad,))  # expect: BL503
