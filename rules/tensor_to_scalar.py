from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.patterns import method_call
from breaklint.rule import Rule
from breaklint.values import Kind

# What Dynamo 2.13 says for each form (read from real runs, see testdata/rules/BL101).
METHOD_SAYS = {"item": ("GB0124",), "tolist": ("GB0109", "GB0033")}  # float / integer tensors
SCALAR_BUILTINS = frozenset({"int", "float", "bool", "complex"})  # all go through .item()


class TensorToScalar(Rule):
    """## What it does
    Finds a tensor turned into a Python number or list inside a compiled region: `t.item()`,
    `t.tolist()`, `int(t)`, `float(t)`, `bool(t)`.

    ## Why is this bad?
    The value only exists once the kernels have run, so Dynamo cannot put it in the graph: it ends
    the graph there, runs the Python code eagerly, and starts a new graph after it (a graph
    break). Each break costs a device sync, a trip through Python and the fusion across it.

    ## How to fix
    Keep the value a tensor (`torch.where`, masking, `clamp`) and only call `.item()` outside the
    compiled function, for logging. If the scalar must be used, set
    `torch._dynamo.config.capture_scalar_outputs = True` so that Dynamo traces it as a symbolic
    integer (or use `fullgraph=True`, which implies it from torch 2.10).

    ## When it is fine
    Outside compiled code, in a debugging path that is off in production, or when
    `capture_scalar_outputs` is on.

    ## Dynamo says
    `Unsupported Tensor.item() call with capture_scalar_outputs=False` (GB0124) for `.item()`,
    `int()`, `float()` and `bool()`; `Tensor.tolist() with non-integer tensor` (GB0109) or
    `Data dependent operator` (GB0033, integer tensors) for `.tolist()`.
    """

    code = "BL101"
    name = "tensor-to-scalar"
    stage = Stage.DYNAMO
    message = "{what} in {region} turns a tensor into a Python scalar and forces a graph break"
    help = (
        "keep the value a tensor (torch.where, masking), move the conversion out of the compiled "
        "code, or set torch._dynamo.config.capture_scalar_outputs = True"
    )
    dynamo_says = {
        "GB0124": "Unsupported Tensor.item() call with capture_scalar_outputs=False",
        "GB0109": "Tensor.tolist() with non-integer tensor",
        "GB0033": "Data dependent operator",
    }
    bad = (
        "import torch\n\n@torch.compile\ndef f(x):\n    return x * x.sum().item()\n",
        "import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    return x * int(x.max())\n",
    )
    good = (
        "import torch\n\ndef f(x):\n    return x.sum().item()  # not compiled\n",
        "import torch\n\n@torch.compile\ndef f(x):\n    return x * int(x.shape[0])\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        receiver = method_call(node, METHOD_SAYS)
        if receiver is not None:
            value = self.ctx.value(receiver)
            if value.kind in (Kind.TENSOR, Kind.MAYBE_TENSOR, Kind.UNKNOWN):
                method = node.func.attr.value  # type: ignore[attr-defined]
                confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
                self.report(node, confidence=confidence, says=METHOD_SAYS[method], what=f"`.{method}()`")
            return
        if isinstance(node.func, cst.Name) and node.func.value in SCALAR_BUILTINS and len(node.args) == 1:
            if self.ctx.resolve(node.func) != node.func.value:
                return  # a shadowed `int`
            value = self.ctx.value(node.args[0].value)
            if value.tensorish:
                confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
                name = node.func.value
                self.report(node, confidence=confidence, says="GB0124", what=f"`{name}(tensor)`")
