"""A feature map passed whole, transposed and subsampled with a step: one compile per layout."""
import torch


@torch.compile
def pool(x):
    return x.relu().mean(-1)


def main():
    feats = torch.randn(16, 16)
    pool(feats)
    pool(feats.transpose(0, 1))
    pool(feats[:, ::2])
