"""BL120 negatives: a fake kernel that describes the output."""
import torch


@torch.library.custom_op("breaklint_good::fused_gelu", mutates_args=())
def fused_gelu(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(x)


@fused_gelu.register_fake
def _(x):
    return torch.empty_like(x)


@torch.compile
def mlp(x):
    return fused_gelu(x @ x) + 1  # breaklint: ignore[BL403] BL403 has its own testdata
