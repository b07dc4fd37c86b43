"""BL101 negatives: nothing here may graph-break or be flagged."""
import torch
from torch._dynamo.decorators import leaf_function


def not_compiled(x):
    return x.sum().item()


@torch.compile
def shape_to_int(x):
    return x * int(x.shape[0])


@torch.compile
def python_float(x, scale: float = 2.0):
    return x * float(scale)


@torch.compile
def numel_cast(x):
    return x / float(x.numel())


@torch.compile
def only_when_eager(x):
    if not torch.compiler.is_compiling():
        print(f"sum {x.sum().item()}")  # Dynamo never traces this branch
    return x + 1


def _log(x):
    return x.max().item()


@torch.compile
def helper_only_when_eager(x):
    if torch.compiler.is_compiling():
        return x * 2
    else:
        return x * _log(x)


@torch._dynamo.config.patch(capture_scalar_outputs=True)
@torch.compile
def captured_scalar(x):
    return x * x.sum().item()  # traced as an unbacked SymInt under the patch


@torch.compile(fullgraph=True)
def fullgraph_captures(x):
    return x * int(x.max())  # fullgraph=True implies capture_scalar_outputs from 2.10


@torch.compile
def list_indexed_by_int(x):
    scales = [0.5, 1.0, 2.0]
    return x * scales[x.dim()]


@torch.compile
@torch._dynamo.config.patch(capture_scalar_outputs=True)
def captured_below_compile(x):
    # Dynamo cannot enter the patch's wrapper: it runs it eagerly and compiles this frame under
    # the patch, so the scalar is captured here too.
    return x * x.sum().item()


def _captured_by_wrapper(x):
    return x * x.max().item()


wrapped_capture = torch._dynamo.config.patch(capture_scalar_outputs=True)(torch.compile(_captured_by_wrapper))


@leaf_function
def logged_scale(x):
    # A leaf function runs eagerly: Dynamo never traces its body.
    return (x * x.sum().item(),)


@logged_scale.register_fake
def _(x):
    return (torch.empty_like(x),)


@torch.compile
def through_leaf_function(x):
    return logged_scale(x)[0] + 1


def _per_head_scores(x, heads):
    # `heads` sizes a new tensor (a Python int, not a tensor): `range(heads)` is fine.
    scores = torch.zeros(heads, x.shape[-1])
    for head in range(heads):
        scores[head] = x[head % x.shape[0]]
    return scores


class PerHead(torch.nn.Module):
    def __init__(self, heads=4):
        super().__init__()
        self.heads = heads

    def forward(self, x):
        return _per_head_scores(x, self.heads)


per_head = torch.compile(PerHead())


def _captured_at_call_sites(x):
    return x / x.abs().max().item()  # every call of the compiled function is under the patch


def scenario_calls_under_patch():
    fast = torch.compile(_captured_at_call_sites, backend="eager")
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        fast(torch.randn(8, 8))
        fast(torch.randn(8, 8))
