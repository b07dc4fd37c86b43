"""Tensor methods, setters and ops Dynamo cannot trace, in model code."""
import random

import torch
from torch import nn


class SharedEmbedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(8, 8))

    def forward(self, x):
        weights = self.table.detach().clone()
        weights.share_memory_()
        return x @ weights


@torch.compile
def set_real_part(spectrum: torch.Tensor, x: torch.Tensor):
    spectrum.real = x
    return spectrum


@torch.compile
def fit_linear_probe(features):
    targets = features.sum(-1, keepdim=True)
    return torch.linalg.lstsq(features, targets).solution


@torch.library.custom_op("corpus_breaks::fused_bias_gelu", mutates_args=())
def fused_bias_gelu(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(x + 1)


@fused_bias_gelu.register_fake
def _(x):
    raise NotImplementedError("meta kernel for fused_bias_gelu")


@torch.compile
def mlp(x):
    return fused_bias_gelu(x @ x) * 2


class RandomCrop(nn.Module):
    def forward(self, x):
        size = random.randint(2, 6)
        noise = torch.randn(size).sum()
        return x + noise


shared_embedding = torch.compile(SharedEmbedding())
random_crop = torch.compile(RandomCrop())
CALLS = {"set_real_part": [(torch.zeros(8, 8, dtype=torch.complex64), torch.randn(8, 8)) for _ in range(3)]}


@torch.compile
def cache_key(x):
    key = f"scale={x.abs().max()}"
    return x * len(key)
