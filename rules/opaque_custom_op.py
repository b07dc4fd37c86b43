from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Severity, Stage
from breaklint.rule import CUSTOM_OP_NAMES, dotted, FunctionInfo, Rule

from ._support import bindings
# `torch.ops.<namespace>.<op>` outside these namespaces is an op registered by a library or user.
TORCH_NAMESPACES = frozenset({"aten", "prims", "higher_order", "_c10d_functional", "c10d_functional",
                              "_dtensor", "inductor", "quantized_decomposed"})


class OpaqueCustomOp(Rule):
    """## What it does
    Finds calls in a compiled region to custom operators: functions decorated with
    `@torch.library.custom_op` in the checked code, names bound to one
    (`op = torch.library.custom_op("mylib::op", impl, mutates_args=())`), and
    `torch.ops.<namespace>.<op>(...)` outside torch's own namespaces
    (`torch.ops.mylib.fused_rope(x)`, `torch.ops.torchvision.nms(...)`). Dynamo does not trace
    a custom op's body, so nothing inside it is reported by the graph-break rules.

    ## Why is this bad?
    A custom op is a black box to the compiler: Dynamo keeps it in the graph (no break), but
    Inductor has no lowering for it and calls it as an external kernel (`Creating implicit
    fallback for ...`), so nothing fuses across it and its inputs are materialised in memory.
    That is the price of the escape hatch; it is worth knowing where it is paid.

    ## How to fix
    Nothing, if the op is a hand-written fast kernel. If it wraps plain torch code, call the torch
    code directly so that Inductor can fuse it; for Triton kernels use `torch.library.triton_op`,
    which Inductor can see into.

    ## When it is fine
    Most of the time: this is information (severity `info`), not a defect.

    ## Dynamo says
    Inductor: `Creating implicit fallback for: <op>` and `Using FallbackKernel: <op>` (perf hints).
    """

    code = "BL403"
    name = "opaque-custom-op"
    stage = Stage.INDUCTOR
    severity = Severity.INFO
    message = "custom op `{op}` in {region} is opaque to Inductor: it runs as an external kernel and nothing fuses across it"
    help = "fine for a hand-written kernel; call plain torch code directly so Inductor can fuse it, or use torch.library.triton_op"
    dynamo_says = {"fallback": "Inductor perf hint `Creating implicit fallback for: <op>`"}
    bad = (
        "import torch\n\n@torch.library.custom_op('mylib::double', mutates_args=())\n"
        "def double(x: torch.Tensor) -> torch.Tensor:\n    return x * 2\n\n"
        "@torch.compile\ndef f(x):\n    return double(x) + 1\n",
    )
    good = ("import torch\n\ndef double(x):\n    return x * 2\n\n@torch.compile\ndef f(x):\n    return double(x) + 1\n",)

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func) or ""
        parts = resolved.split(".")
        if len(parts) >= 4 and parts[:2] == ["torch", "ops"] and parts[2] not in TORCH_NAMESPACES:
            self.report(node, confidence=Confidence.CERTAIN, says="fallback", op=".".join(parts[2:4]))
            return
        if not isinstance(node.func, (cst.Name, cst.Attribute)):
            return
        if "." in resolved:
            found = self.ctx.project.lookup(resolved, self.ctx.module)
            if isinstance(found, FunctionInfo) and self._is_custom_op(found):
                self.report(node, confidence=Confidence.CERTAIN, says="fallback", op=dotted(node.func) or resolved)
                return
        if any(self._makes_custom_op(value, module) for value, module in bindings(self.ctx, node.func)):
            self.report(node, confidence=Confidence.CERTAIN, says="fallback", op=dotted(node.func) or resolved)

    @staticmethod
    def _makes_custom_op(value: cst.BaseExpression, module) -> bool:  # type: ignore[no-untyped-def]
        """`custom_op("lib::op", fn, ...)` or `custom_op("lib::op", mutates_args=())(fn)`."""
        if not isinstance(value, cst.Call):
            return False
        if isinstance(value.func, cst.Call):
            return module.imports.resolve(value.func.func) in CUSTOM_OP_NAMES
        positional = [arg for arg in value.args if arg.keyword is None]
        return module.imports.resolve(value.func) in CUSTOM_OP_NAMES and len(positional) >= 2

    @staticmethod
    def _is_custom_op(fn: FunctionInfo) -> bool:
        for decorator in fn.node.decorators:
            expr = decorator.decorator
            callee = expr.func if isinstance(expr, cst.Call) else expr
            if fn.module.imports.resolve(callee) in CUSTOM_OP_NAMES:
                return True
        return False
