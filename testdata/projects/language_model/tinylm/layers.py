"""Transformer pieces of TinyLM."""
import math

import torch
from torch import nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Attention(nn.Module):
    def __init__(self, dim, heads, causal=True):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.causal = causal

    def forward(self, x, bias=None, padding=None):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).unbind(2)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(d // self.heads)
        if bias is not None:  # None or a tensor: a Python test, no break
            scores = scores + bias
        if self.causal:
            scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
        if padding is not None:
            scores = scores.masked_fill(padding[:, None, None, :], -1e4)
        weights = scores.softmax(-1)
        return self.out(torch.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = RMSNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = RMSNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, bias=None, padding=None):
        x = x + self.attn(self.norm1(x), bias, padding)
        return x + self.mlp(self.norm2(x))


class RecurrentEncoder(nn.Module):
    """A bidirectional LSTM over the embeddings, as older models put before the transformer."""

    def __init__(self, dim):
        super().__init__()
        self.lstm = nn.LSTM(dim, dim // 2, batch_first=True, bidirectional=True)

    def forward(self, x):
        out, _ = self.lstm(x)  # expect: BL111
        return F.layer_norm(out, out.shape[-1:])
