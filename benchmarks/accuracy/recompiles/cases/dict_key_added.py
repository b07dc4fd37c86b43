"""A key is added to the same dict between two calls."""
import torch


@torch.compile
def total(parts):
    return sum(v.sum() for v in parts.values())


def main():
    parts = {"a": torch.randn(4)}
    total(parts)
    parts["b"] = torch.randn(4)
    total(parts)
