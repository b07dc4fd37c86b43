"""BL104 negatives: static-shape alternatives and writes through a mask."""
import torch


@torch.compile
def where_three_args(x):
    return torch.where(x > 0, x, 0)


@torch.compile
def multiply_mask(x):
    return x * (x > 0)


@torch.compile
def write_through_mask(x):
    y = x.clone()
    y[y < 0] = 0
    return y


@torch.compile
def int_index(x):
    return x[0] + x[:, 1]


@torch.compile
def static_shapes(x):
    labels = x.abs().long().flatten() % 4
    onehot = torch.nn.functional.one_hot(labels, num_classes=4)
    rows = torch.repeat_interleave(x, 2, dim=0)
    sized = torch.repeat_interleave(x, torch.full((8,), 2), dim=0, output_size=16)
    return onehot.sum() + rows.sum() + sized.sum()


@torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True)
@torch.compile
def captured_nonzero(x):
    return torch.nonzero(x) + 1  # traced with an unbacked size under the patch


def least_squares_outside(x):
    return torch.linalg.lstsq(x, x).solution  # not compiled


ROWS = {True: 2.0, False: 3.0}


@torch.compile
def indexed_by_python_bool(x: torch.Tensor):
    return x * ROWS[x.dim() > 1]  # an unknown table indexed by a Python bool: no mask
