"""Weight tying and memory accounting, as timm/transformers helpers do it in forward."""
import torch
from torch import nn


class TiedHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.embed = nn.Linear(dim, dim, bias=False)
        self.head = nn.Linear(dim, dim, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, x):
        if self.head.weight.data_ptr() == self.embed.weight.data_ptr():
            return self.head(self.embed(x))
        return self.head(x)


class MemoryTracker(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor):
        out = self.proj(x)
        used = out.untyped_storage().nbytes()
        return out * (used > 0)


class SortedFeatures(nn.Module):
    def forward(self, x: torch.Tensor):
        norms = sorted([x[0].norm(), x[1].norm(), x[2].norm()])
        return x * norms[0]


tied = torch.compile(TiedHead())
tracker = torch.compile(MemoryTracker())
features = torch.compile(SortedFeatures())
