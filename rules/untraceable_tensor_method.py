from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import method_call, Rule

# Tensor methods Dynamo refuses (torch/_dynamo/variables/tensor.py), read from real runs on 2.13.
METHODS = {"random_": "GB0107", "resize_": "GB0126", "resize_as_": "GB0127", "set_": "GB0128",
           "share_memory_": "GB0117"}
# Tensor attributes Dynamo cannot set (`x.real = y`): "Failed to set tensor attribute".
SETTERS = {"real": "GB0058", "imag": "GB0058"}


class UntraceableTensorMethod(Rule):
    """## What it does
    Finds tensor methods that Dynamo does not trace inside a compiled region: `t.random_()`,
    `t.resize_(...)`, `t.resize_as_(...)`, `t.set_(storage, offset, size, stride)` and
    `t.share_memory_()`; and tensor attributes it cannot set: `t.real = ...`, `t.imag = ...`.

    ## Why is this bad?
    These methods change a tensor's storage or draw from a generator in ways that fake tensors
    cannot model, so Dynamo ends the graph at the call and runs it eagerly.

    ## How to fix
    `torch.randint_like(t, high)` instead of `random_()`; allocate the right size up front
    (`t.new_empty(shape)`, `torch.empty_like`) or use `reshape`/`view` instead of `resize_`;
    avoid `set_` in compiled code.

    ## When it is fine
    Outside compiled code.

    ## Dynamo says
    `Tensor.random_ op` (GB0107), `Unsupported Tensor.resize_() call` (GB0126), `Unsupported
    Tensor.resize_as_() call` (GB0127), `Unsupported Tensor.set_() call` (GB0128, with more than
    one argument), `Unhandled args for method` (GB0117) for `share_memory_()`, `Failed to set
    tensor attribute` (GB0058) for `t.real = ...`.
    """

    code = "BL117"
    name = "untraceable-tensor-method"
    stage = Stage.DYNAMO
    message = "`{what}` in {region} is a tensor operation Dynamo does not trace: it forces a graph break"
    help = "use a traced equivalent: torch.randint_like for random_, new_empty/reshape instead of resize_"
    dynamo_says = {
        "GB0107": "Tensor.random_ op",
        "GB0126": "Unsupported Tensor.resize_() call",
        "GB0127": "Unsupported Tensor.resize_as_() call",
        "GB0128": "Unsupported Tensor.set_() call",
        "GB0117": "Unhandled args for method",
        "GB0058": "Failed to set tensor attribute",
    }
    bad = ("import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    return x.clone().random_()\n",)
    good = ("import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    return torch.randint_like(x, 10)\n",)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            attribute = target.target
            if isinstance(attribute, cst.Attribute) and attribute.attr.value in SETTERS:
                value = self.ctx.value(attribute.value)
                if value.tensorish:
                    confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
                    self.report(node, confidence=confidence, says=SETTERS[attribute.attr.value],
                                what=f".{attribute.attr.value} = ...")

    def visit_Call(self, node: cst.Call) -> None:
        receiver = method_call(node, METHODS)
        if receiver is None or self.ctx.resolve(node.func) in ("torch.set_", "torch.resize_"):
            return
        method = node.func.attr.value  # type: ignore[attr-defined]
        if method == "set_" and len(node.args) < 2:
            return  # set_(source) with one tensor is traced
        value = self.ctx.value(receiver)
        if value.tensorish:
            confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
            self.report(node, confidence=confidence, says=METHODS[method], what=f".{method}()")
