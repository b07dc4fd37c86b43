"""BL113 positives: each marked line must graph-break under real Dynamo."""
import torch


@torch.compile
def makes_input_trainable(x: torch.Tensor):
    x.requires_grad_(True)  # expect: BL113
    return x * 2


@torch.compile
def trainable_intermediate(x: torch.Tensor):
    y = x * 2
    y.requires_grad_()  # expect: BL113
    return y


@torch.compile
def flips_flag(x: torch.Tensor):
    y = x * 2
    y.requires_grad = True  # expect: BL113
    return y + 1


@torch.compile
def new_leaf(x):
    bias = torch.zeros(8, requires_grad=True)  # expect: BL113
    return x + bias


class Warp(torch.nn.Module):
    """MONAI's Warp: a reference grid cached on the module, `None` until the first call builds it
    (a probable tensor where read); the flag is set on the cached tensor."""

    def __init__(self):
        super().__init__()
        self.ref_grid = None

    def get_reference_grid(self, x):
        if self.ref_grid is not None and self.ref_grid.shape == x.shape:
            return self.ref_grid
        grid = torch.zeros_like(x)
        grid = grid.to(x)
        self.ref_grid = grid
        self.ref_grid.requires_grad = False  # expect: BL113
        return self.ref_grid

    def forward(self, x):
        grid = self.get_reference_grid(x)  # another method's `grid`: not what the cache stores
        return x + grid


warp = torch.compile(Warp())
