"""Sampling helpers, compiled once at import (the way a library exports a compiled kernel)."""
import torch


def _scale_logits(logits, temperature: float):
    return logits / temperature


def _normalize(logits, dim: int):
    return logits.softmax(dim)


scale_logits = torch.compile(_scale_logits)
normalize = torch.compile(_normalize)
