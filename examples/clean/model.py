"""A model written the compile-friendly way: breaklint finds nothing here."""
import torch
from torch import nn
from torch.nn import functional as F


class MLP(nn.Module):
    def __init__(self, dim: int = 64) -> None:
        super().__init__()
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        h = self.down(F.gelu(self.up(self.norm(x))))
        h = h.clamp(-1e4, 1e4)  # instead of `if h.abs().max() > 1e4`
        if mask is not None:
            h = torch.where(mask, h, 0.0)  # instead of h[mask]
        if self.training and x.dim() == 3:
            h = F.dropout(h, 0.1)
        return x + h


def loss_fn(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    return model(x).pow(2).mean()


compiled_loss = torch.compile(loss_fn)
