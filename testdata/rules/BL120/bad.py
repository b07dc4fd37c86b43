"""BL120 positives: each marked line breaks under real Dynamo."""
import torch


@torch.library.custom_op("breaklint_bad::fused_gelu", mutates_args=())
def fused_gelu(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(x)


@fused_gelu.register_fake
def _(x):
    raise NotImplementedError("fake kernel not written yet")


@torch.compile
def mlp(x):
    return fused_gelu(x @ x) + 1  # expect: BL120  # breaklint: ignore[BL403] BL403 has its own testdata
