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


@torch.library.custom_op("breaklint_testdata::logged_scale", mutates_args=())
def logged_scale(x: torch.Tensor) -> torch.Tensor:
    # Dynamo does not trace a custom op's body: neither the print nor .item() break here.
    print("custom op")
    return x * x.sum().item()


@logged_scale.register_fake
def _(x):
    return torch.empty_like(x)


@torch.compile
def through_breaking_body(x):
    return logged_scale(x) + 1  # expect: BL403


def _shifted(x: torch.Tensor) -> torch.Tensor:
    return x + float(x.max())


shifted = torch.library.custom_op("breaklint_testdata::shifted", _shifted, mutates_args=())
shifted.register_fake(lambda x: torch.empty_like(x))


@torch.compile
def through_call_form(x):
    return shifted(x) * 2  # expect: BL403
