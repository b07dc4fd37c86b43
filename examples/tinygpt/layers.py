"""Building blocks of a small GPT. Several of them cost torch.compile its speed."""
import math

import torch
from torch import nn
from torch.nn import functional as F


def attention_scale(q: torch.Tensor) -> float:
    # A Python float from a tensor: Dynamo breaks the graph here.
    return 1.0 / math.sqrt(q.abs().max().item())


class CausalSelfAttention(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, dim = x.shape
        q, k, v = self.qkv(x).split(dim, dim=2)
        q = q.view(batch, seq, self.heads, dim // self.heads).transpose(1, 2)
        k = k.view(batch, seq, self.heads, dim // self.heads).transpose(1, 2)
        v = v.view(batch, seq, self.heads, dim // self.heads).transpose(1, 2)
        scores = (q @ k.transpose(-2, -1)) * attention_scale(q)
        mask = torch.ones(seq, seq, device=x.device).tril() == 0
        scores = scores.masked_fill(mask, float("-inf"))
        y = F.softmax(scores, dim=-1) @ v
        return self.out(y.transpose(1, 2).reshape(batch, seq, dim))


class MLP(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.gelu(self.up(x))
        if h.abs().max() > 1e4:  # a data-dependent branch: graph break
            h = h.clamp(-1e4, 1e4)
        return self.down(h)


class Block(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = MLP(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))
