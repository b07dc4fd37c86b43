"""BL403 positives: each marked line must be where Inductor calls a custom op as a fallback."""
import torch

BACKEND = "inductor"  # judged at the Inductor stage (C++ on CPU)


@torch.library.custom_op("breaklint_testdata::scaled_rows", mutates_args=())
def scaled_rows(x: torch.Tensor) -> torch.Tensor:
    return x * x.sum(dim=1, keepdim=True)


@scaled_rows.register_fake
def _(x):
    return torch.empty_like(x)


@torch.compile
def through_library_op(x):
    return scaled_rows(x)  # expect: BL403


@torch.compile
def through_torch_ops(x):
    return torch.ops.breaklint_testdata.scaled_rows(x)  # expect: BL403
