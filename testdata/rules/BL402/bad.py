"""BL402 positives: each marked line must be where Inductor falls back on complex tensors."""
import torch

BACKEND = "inductor"  # judged at the Inductor stage (C++ on CPU)

MAGNITUDE = torch.ones(8, 4)
ANGLES = torch.linspace(0, 1, 32).reshape(8, 4)


@torch.compile
def rotary(x):
    freqs_cis = torch.polar(MAGNITUDE, ANGLES)  # expect: BL402
    xq_ = torch.view_as_complex(x.reshape(8, 4, 2))  # expect: BL402
    return torch.view_as_real(xq_ * freqs_cis).flatten(1)  # expect: BL402


@torch.compile
def as_complex(x):
    return torch.view_as_real(x.to(torch.complex64) * 2)  # expect: BL402
