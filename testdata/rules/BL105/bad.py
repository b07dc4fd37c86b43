"""BL105 positives: each marked line must graph-break under real Dynamo."""
import pdb

import torch


@torch.compile
def user_break(x):
    x = x + 1
    torch._dynamo.graph_break()  # expect: BL105
    return x * 2


@torch.compile
def debugger(x):
    x = x + 1
    breakpoint()  # expect: BL105
    return x * 2


@torch.compile
def pdb_trace(x):
    x = x + 1
    pdb.set_trace()  # expect: BL105
    return x * 2


@torch.compiler.disable
def _eager_only(x):
    return x * 2


@torch.compile
def calls_disabled(x):
    return _eager_only(x + 1) + 1  # expect: BL105


def _plain(x):
    return x * 3


eager_plain = torch._dynamo.disable(_plain)


@torch.compile
def calls_disabled_by_name(x):
    return eager_plain(x + 1) + 1  # expect: BL105


@torch.compile
def disables_inline(x):
    return torch.compiler.disable(_plain)(x + 1) + 1  # expect: BL105


def _report_activation_norm(x):
    # Called through torch.compiler.disable(...) below: Dynamo runs it untraced, so its print
    # and .item() break nothing (and breaklint does not report them).
    print("activation norm", x.norm().item())
    return x


@torch.compile
def reports_through_inline_disable(x):
    y = torch.relu(x)
    torch.compiler.disable(_report_activation_norm)(y)  # expect: BL105
    return y * 2


class Net(torch.nn.Module):
    @torch.compiler.disable
    def eager_part(self, x):
        return x * 2

    def forward(self, x):
        return self.eager_part(x + 1) + 1  # expect: BL105


compiled_net = torch.compile(Net())


@torch.compile
def patches_config_inside(x):
    x = x + 1
    with torch._dynamo.config.patch(capture_scalar_outputs=True):  # expect: BL105
        scale = x.sum().item()  # not traced: Dynamo skips the whole frame at the `with`
    return x * scale


@torch.compile
def gives_up(x):
    torch._dynamo.step_unsupported()  # expect: BL105
    return x * 2


@torch.compiler.disable
def _log_stats(t):
    return t + 0


def _apply_hook(hook, x):
    return hook(x) * 2  # expect: BL105


@torch.compile
def with_stats_hook(x):
    return _apply_hook(_log_stats, x)


class InPlaceCodebook(torch.nn.Module):
    # Steps its own optimizer in forward (vector-quantize-pytorch's in-place codebook optimizer):
    # torch.optim breaks the graph around `step` on purpose, and `zero_grad` is disabled.
    def __init__(self):
        super().__init__()
        self.codebook = torch.nn.Parameter(torch.randn(8, 8))
        self.codebook.grad = torch.zeros_like(self.codebook)
        self.optimizer = torch.optim.SGD([self.codebook], lr=0.1)

    def forward(self, x):
        self.optimizer.step()  # expect: BL105
        self.optimizer.zero_grad()  # expect: BL105
        return x @ self.codebook


in_place_codebook = torch.compile(InPlaceCodebook())
