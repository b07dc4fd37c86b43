from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import method_call, Rule

# Factories whose `requires_grad=True` makes a new leaf inside the region (GB0225, from 2.9).
FACTORIES = frozenset(
    f"torch.{name}" for name in ("zeros", "ones", "empty", "full", "rand", "randn", "randint", "arange",
                                 "linspace", "eye", "tensor", "zeros_like", "ones_like", "empty_like",
                                 "full_like", "rand_like", "randn_like")
)


def _is_false(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "False"


class RequiresGradMutation(Rule):
    """## What it does
    Finds changes to autograd leaf status inside a compiled region: `t.requires_grad_()`,
    `t.requires_grad = ...`, and new tensors made with `requires_grad=True`
    (`torch.zeros(..., requires_grad=True)`).

    ## Why is this bad?
    AOTAutograd traces forward and backward together and needs to know, before tracing, which
    tensors need gradients. Turning a tensor into a leaf in the middle of the graph changes that
    split, so Dynamo ends the graph there (a graph break) and lets eager autograd handle it.

    ## How to fix
    Set `requires_grad` once, outside the compiled function (on parameters at construction, on
    inputs before the call). For new trainable state, create an `nn.Parameter` in `__init__`.
    `t.detach()` and `torch.no_grad()` are traced.

    ## When it is fine
    `requires_grad_(False)` on a detached tensor; code outside the region.

    ## Dynamo says
    `Unsupported Tensor.requires_grad_() call` (GB0125) on an input; `requires_grad_()
    intermediate leaked as output` (GB8985, 2.13) on a tensor the region returns;
    `setattr() on Tensor.requires_grad` (GB0206); `Attempted to use tensor creation function with
    requires_grad=True` (GB0225, from 2.9).
    """

    code = "BL113"
    name = "requires-grad-mutation"
    stage = Stage.DYNAMO
    message = "{what} in {region} changes which tensors need gradients mid-graph and forces a graph break"
    help = "set requires_grad outside the compiled code (on inputs before the call, on parameters in __init__)"
    dynamo_says = {
        "GB0125": "Unsupported Tensor.requires_grad_() call",
        "GB8985": "requires_grad_() intermediate leaked as output",
        "GB0206": "setattr() on Tensor.requires_grad",
        "GB0225": "Attempted to use tensor creation function with requires_grad=True",
    }
    bad = ("import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    x.requires_grad_()\n    return x * 2\n",)
    good = ("import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    return x.detach() * 2\n",)

    def visit_Call(self, node: cst.Call) -> None:
        receiver = method_call(node, {"requires_grad_"})
        if receiver is not None:
            if node.args and _is_false(node.args[0].value):
                return
            value = self.ctx.value(receiver)
            if value.tensorish:
                confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
                self.report(node, confidence=confidence, says=("GB0125", "GB8985"), what="`.requires_grad_()`")
            return
        if self.ctx.resolve(node.func) in FACTORIES:
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value == "requires_grad" and not _is_false(arg.value):
                    self.report(node, confidence=Confidence.CERTAIN, says="GB0225",
                                what="a tensor created with `requires_grad=True`")

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            attribute = target.target
            if isinstance(attribute, cst.Attribute) and attribute.attr.value == "requires_grad":
                value = self.ctx.value(attribute.value)
                if value.tensorish:
                    confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
                    self.report(node, confidence=confidence, says="GB0206", what="`.requires_grad = ...`")
