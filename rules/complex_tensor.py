from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import FileContext, FunctionInfo, Rule

PRODUCERS = frozenset({"torch.view_as_complex", "torch.polar", "torch.complex"})
COMPLEX_DTYPES = frozenset(f"torch.{n}" for n in ("complex64", "complex128", "complex32", "cfloat", "cdouble", "chalf"))


class ComplexTensor(Rule):
    """## What it does
    Finds complex tensors made and used in a compiled region: `torch.view_as_complex`,
    `torch.polar`, `torch.complex`, `.to(torch.complex64)`, factories with a complex `dtype=`,
    and arithmetic on names bound to them (the rotary-embedding pattern
    `torch.view_as_real(xq_ * freqs_cis)`).

    ## Why is this bad?
    Inductor generates no code for complex dtypes: every op that touches a complex tensor runs
    as an eager ATen fallback, so none of it fuses, and Inductor warns `Torchinductor does not
    support code generation for complex operators. Performance may be worse than eager.`

    ## How to fix
    Do the complex arithmetic on real pairs: for rotary embeddings, keep `cos`/`sin` tables and
    compute `x * cos + rotate_half(x) * sin` (the form most models use); for FFT-based code,
    accept the fallback but keep the pointwise work on real tensors.

    ## When it is fine
    When the complex part is small next to the rest of the region.

    ## Dynamo says
    Inductor: `Torchinductor does not support code generation for complex operators` and
    `Using FallbackKernel: aten.view_as_complex.default` / `aten.mul.Tensor` (perf hints).
    """

    code = "BL402"
    name = "complex-tensor"
    stage = Stage.INDUCTOR
    message = "{what} in {region}: Inductor has no code generation for complex dtypes, every op on it is an eager fallback"
    help = "compute on real pairs (cos/sin tables, rotate_half) instead of complex tensors"
    dynamo_says = {"fallback": "Inductor: `Torchinductor does not support code generation for complex operators`"}
    bad = ("import torch\n\n@torch.compile\ndef f(x):\n    z = torch.view_as_complex(x.reshape(8, 4, 2))\n"
           "    return torch.view_as_real(z * z)\n",)
    good = ("import torch\n\n@torch.compile\ndef f(x, cos, sin):\n    a, b = x.chunk(2, -1)\n"
            "    return torch.cat([a * cos - b * sin, a * sin + b * cos], -1)\n",)

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._complex: dict[FunctionInfo, set[str]] = {}
        self._lines: set[int] = set()

    def _report_once(self, node: cst.CSTNode, what: str) -> None:
        line = self.ctx.file.line(node)
        if line not in self._lines:
            self._lines.add(line)
            self.report(node, confidence=Confidence.CERTAIN, says="fallback", what=what)

    def visit_Call(self, node: cst.Call) -> None:
        if self._produces(node):
            self._report_once(node, f"`{self.ctx.resolve(node.func) or 'a complex tensor'}` makes a complex tensor")

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        names = self._complex_names()
        for side in (node.left, node.right):
            if isinstance(side, cst.Name) and side.value in names:
                self._report_once(node, f"arithmetic on the complex tensor `{side.value}`")
                return

    def _produces(self, node: cst.CSTNode) -> bool:
        if not isinstance(node, cst.Call):
            return False
        resolve = self.ctx.resolve
        if resolve(node.func) in PRODUCERS:
            return True
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "dtype" and resolve(arg.value) in COMPLEX_DTYPES:
                return True
        func = node.func
        return (isinstance(func, cst.Attribute) and func.attr.value == "to"
                and any(arg.keyword is None and resolve(arg.value) in COMPLEX_DTYPES for arg in node.args))

    def _complex_names(self) -> set[str]:
        """Local names of the current function bound only to complex values."""
        fn = self.ctx.function
        if fn is None:
            return set()
        if fn not in self._complex:
            names: set[str] = set()
            for _ in range(3):  # a few rounds: `a = view_as_complex(...)`, `b = a * c`
                for name, bound in fn.assigns.items():
                    if bound and all(not b.iterated and self._complex_expr(b.expr, names) for b in bound):
                        names.add(name)
            self._complex[fn] = names
        return self._complex[fn]

    def _complex_expr(self, expr: cst.BaseExpression, names: set[str]) -> bool:
        if self._produces(expr):
            return True
        if isinstance(expr, cst.BinaryOperation):
            return any(isinstance(s, cst.Name) and s.value in names for s in (expr.left, expr.right))
        return False
