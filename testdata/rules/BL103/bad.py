"""BL103 positives: each marked line must graph-break under real Dynamo."""
import numpy as np
import torch


@torch.compile
def nan_mean(x):
    return torch.from_numpy(np.nanmean(x.numpy(), axis=0)) + 1  # expect: BL103


@torch.compile
def digitize(x):
    bins = np.linspace(-1.0, 1.0, 5)
    return torch.from_numpy(np.digitize(x.numpy(), bins)) + 1  # expect: BL103


@torch.compile
def membership(x):
    return torch.from_numpy(np.isin(x.numpy(), [0.0, 1.0])) & (x > 0)  # expect: BL103


@torch.compile
def random_block_order(x):
    order = np.random.permutation(8)  # expect: BL103
    return x[torch.from_numpy(order)]


@torch.compile
def numpy_generator_noise(x):
    rng = np.random.default_rng(0)  # expect: BL103
    return x + 1


@torch.compile
def standard_normal_noise(x):
    return x + torch.from_numpy(np.random.standard_normal(8)).float()  # expect: BL103
