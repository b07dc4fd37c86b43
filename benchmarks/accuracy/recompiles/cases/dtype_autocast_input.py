"""The same input in float32, then in float16."""
import torch


@torch.compile
def norm(x):
    return x / x.norm(dim=-1, keepdim=True)


def main():
    x = torch.randn(4, 8)
    norm(x)
    norm(x.half())
