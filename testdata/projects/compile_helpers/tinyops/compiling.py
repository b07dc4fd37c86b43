"""A compile helper in a module of its own, imported by train.py."""
import torch


def compile_fn(fn):
    return torch.compile(fn)
