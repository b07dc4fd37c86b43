"""BL103 negatives: NumPy on tensors that Dynamo traces as torch."""
import numpy as np
import torch


@torch.compile
def exp_of_array(x):
    return torch.from_numpy(np.exp(x.numpy())) + 1


@torch.compile
def asarray_roundtrip(x):
    a = np.asarray(x)
    return torch.from_numpy(np.clip(a, -1.0, 1.0) * 2)


@torch.compile
def torch_nanmean(x):
    return torch.nanmean(x, dim=0) + 1


@torch.compile
def torch_block_order(x):
    np.random.seed(0)  # traced (torch._numpy.random.seed)
    order = torch.randperm(8)
    return x[order] + torch.from_numpy(np.random.rand(8, 8)).float()
