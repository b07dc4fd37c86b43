"""BL401 positives: each marked line must be where Inductor falls back to an ATen kernel."""
import torch
import torch.nn.functional as F

BACKEND = "inductor"  # judged at the Inductor stage (C++ on CPU)

_BASE = torch.randn(8, 8)
SPD = _BASE @ _BASE.T + 8 * torch.eye(8)  # symmetric positive definite: cholesky and solve succeed
CALLS = {"whiten": [(SPD,)] * 2, "solve_system": [(SPD,)] * 2}
OFFSETS = torch.tensor([0, 2])
INDICES = torch.tensor([1, 2, 4, 5])


@torch.compile
def spectral_norm(x):
    return torch.linalg.svd(x).S  # expect: BL401


@torch.compile
def whiten(cov):
    return torch.linalg.cholesky(cov)  # expect: BL401


@torch.compile
def solve_system(a):
    return torch.linalg.solve(a, a)  # expect: BL401


@torch.compile
def frequency_filter(x):
    return torch.fft.irfft(torch.fft.rfft(x), n=8)  # expect: BL401


@torch.compile
def histogram_feature(x):
    return torch.histc(x, bins=4)  # expect: BL401


@torch.compile
def pairwise(x):
    return torch.cdist(x, x)  # expect: BL401


@torch.compile
def bag_of_embeddings(table):
    return F.embedding_bag(INDICES, table, OFFSETS)  # expect: BL401
