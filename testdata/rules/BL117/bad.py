"""BL117 positives: each marked line must graph-break under real Dynamo."""
import torch


@torch.compile
def random_ints(x: torch.Tensor):
    return x.clone().random_(0, 10)  # expect: BL117


@torch.compile
def grows(x: torch.Tensor):
    y = x.clone()
    y.resize_(4, 16)  # expect: BL117
    return y


@torch.compile
def reshaped_like(x: torch.Tensor):
    y = x.clone()
    y.resize_as_(torch.zeros(4, 16))  # expect: BL117
    return y


@torch.compile
def rebinds_storage(x: torch.Tensor):
    y = x.clone()
    y.set_(torch.zeros(64).untyped_storage(), 0, (8, 8), (8, 1))  # expect: BL117
    return y


@torch.compile
def shared_for_workers(x: torch.Tensor):
    y = x.clone()
    y.share_memory_()  # expect: BL117
    return y


@torch.compile
def overwrite_real_part(z: torch.Tensor, x: torch.Tensor):
    z.real = x  # expect: BL117
    return z


# A complex buffer comes in from outside (complex tensors made in the region are BL402's).
CALLS = {"overwrite_real_part": [(torch.zeros(8, 8, dtype=torch.complex64), torch.randn(8, 8)) for _ in range(3)]}
