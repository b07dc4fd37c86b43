"""BL115 positives: each marked line must graph-break under real Dynamo."""
import torch


@torch.compile
def sparsify(x: torch.Tensor):
    return x.to_sparse() * 2  # expect: BL115


@torch.compile
def build_adjacency(x):
    index = torch.tensor([[0, 1], [1, 0]])
    adjacency = torch.sparse_coo_tensor(index, torch.ones(2), (8, 8))  # expect: BL115
    return x + 1, adjacency
