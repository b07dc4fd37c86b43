"""BL101 positives: each marked line must graph-break under real Dynamo."""
import torch


@torch.compile
def scale_by_total(x):
    return x * x.sum().item()  # expect: BL101


@torch.compile
def to_list(x: torch.Tensor):
    values = x[0].tolist()  # expect: BL101
    return x + len(values)


@torch.compile
def as_int(x: torch.Tensor):
    return x * int(x.max())  # expect: BL101


@torch.compile
def as_float(x: torch.Tensor):
    return x / float(x.abs().sum())  # expect: BL101


def _helper(t):
    return t.mean().item()  # expect: BL101


@torch.compile
def through_helper(x):
    return x - _helper(x)


@torch.compile
def as_bool(x: torch.Tensor):
    return x * bool(x.sum() > 0)  # expect: BL101


@torch.compile
def int_tolist(x):
    return x + len(x.long()[0].tolist())  # expect: BL101


SCALES = [0.5, 1.0, 2.0]


@torch.compile
def list_indexed_by_tensor(x):
    i = (x.sum() > 0).long()
    return x * SCALES[i]  # expect: BL101


@torch.compile
def sliced_by_tensor(x):
    n = (x[0, 0] > 0).long() + 2
    return x[:n]  # expect: BL101


@torch.compile
def range_of_tensor(x):
    steps = x.sum().long().abs() % 3 + 1
    for _ in range(steps):  # expect: BL101
        x = x * 2
    return x


class ScaleByTotal(torch.autograd.Function):
    """Dynamo inlines `apply` into `forward`: the break is reported at its line."""

    @staticmethod
    def forward(ctx, x):
        return x * x.sum().item()  # expect: BL101

    @staticmethod
    def backward(ctx, grad):
        return grad


@torch.compile
def through_autograd_function(x):
    return ScaleByTotal.apply(x) + 1


class NormalisedGrad(torch.autograd.Function):
    """With an input that requires grad, Dynamo traces `backward` at the `apply` too."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad / grad.abs().max().item()  # expect: BL101


@torch.compile
def through_autograd_backward(x):
    return NormalisedGrad.apply(x).sum()


CALLS = {"through_autograd_backward": [(torch.randn(8, 8, requires_grad=True),) for _ in range(3)]}


def _row_scale(x):
    return x * x.sum().item()  # expect: BL101


class ScaledBlock(torch.nn.Module):
    def forward(self, x):
        return _row_scale(x) + 1


class Stack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList([ScaledBlock() for _ in range(2)])

    def forward(self, x):
        for block in self.blocks:  # a break below this loop: Dynamo skips Stack.forward (GB7000)
            x = block(x)
        return x


stack = torch.compile(Stack())


@torch._dynamo.nonstrict_trace
def _scaled_outside_dynamo(x):
    # Dynamo does not trace this body, it runs it non-strictly; the scalar makes that fail,
    # Dynamo breaks at the call, then traces this function as a frame of its own and breaks here.
    return x * x.sum().item()  # expect: BL101


@torch.compile
def through_nonstrict_trace(x):
    return _scaled_outside_dynamo(x) + 1  # expect: BL101
