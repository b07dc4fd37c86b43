"""BL102 negatives: branches on shapes, modes and Python values are guards, not breaks."""
import torch

USE_BIAS = True


@torch.compile
def on_dim(x):
    if x.dim() == 2:
        return x + 1
    return x


@torch.compile
def on_shape(x):
    if x.shape[0] > 4 and x.size(1) == 8:
        return x * 2
    return x


@torch.compile
def on_constant(x):
    return x + 1 if USE_BIAS else x


@torch.compile
def on_none(x, mask=None):
    if mask is not None:
        x = x * mask
    return x


@torch.compile
def with_where(x):
    return torch.where(x.sum() > 0, x, -x)


class Dropout(torch.nn.Module):
    def forward(self, x):
        if self.training and isinstance(x, torch.Tensor):
            return x * 0.5
        return x


dropout = torch.compile(Dropout())


@torch.compile
def asserts_on_tensors_are_traced(x):
    # torch 2.13 turns a tensor assert into an async assert: no graph break.
    assert x.sum() > -1000
    assert (x > -1000).all()
    return x + 1
