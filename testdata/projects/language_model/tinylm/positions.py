"""Relative-position buckets, computed the way a data-pipeline author might: with NumPy."""
import numpy as np
import torch


def relative_buckets(length, buckets):
    offsets = torch.arange(length)[None, :] - torch.arange(length)[:, None]
    # np.digitize has no torch equivalent Dynamo knows: the tensor leaves the graph.
    index = np.digitize(offsets.abs().numpy(), np.asarray(buckets))  # expect: BL103
    return torch.from_numpy(index)


def sinusoid(length, dim):
    # NumPy-looking but all torch: traced into the graph.
    position = torch.arange(length, dtype=torch.float32)[:, None]
    freq = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-4.0 / dim))
    return torch.cat([torch.sin(position * freq), torch.cos(position * freq)], dim=-1)
