"""BL120 fake-kernel-raises: a custom op called in a region whose fake (meta) kernel raises."""

from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import dotted, Rule

FAKE_FAILS = "GB0087"  # the fake kernel raised NotImplementedError while Dynamo ran the FX node
REGISTER_FAKE = frozenset({"register_fake", "register_meta", "impl_abstract"})
LIBRARY_REGISTER = frozenset({"torch.library.register_fake", "torch.library.impl_abstract"})


def _raises_first(fn: cst.FunctionDef) -> bool:
    """The body's first statement (after a docstring) is a `raise`."""
    body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else [fn.body]
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            small = stmt.body[0]
            if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                continue
            return isinstance(small, cst.Raise)
        return False
    return False


class FakeKernelRaises(Rule):
    """## What it does
    Finds calls in a compiled region to a custom op whose fake kernel raises: a function
    registered with `@op.register_fake` (or `@torch.library.register_fake("ns::op")`) whose body
    starts with `raise` (`raise NotImplementedError`), as a placeholder for an op whose output
    shape the author could not describe.

    ## Why is this bad?
    Dynamo runs every op on fake tensors to learn its output's shape and dtype. When the fake
    kernel raises, Dynamo cannot put the op in the graph: it ends the graph there and runs the
    op eagerly, then starts a new graph.

    ## How to fix
    Write the fake kernel: return an empty tensor of the output's shape and dtype
    (`return torch.empty_like(x)`); for an output whose size depends on data, allocate it with
    `torch.library.get_ctx().new_dynamic_size()`.

    ## When it is fine
    Outside compiled code.

    ## Dynamo says
    `NotImplementedError/UnsupportedFakeTensorException when running FX node` (GB0087).
    """

    code = "BL120"
    name = "fake-kernel-raises"
    stage = Stage.DYNAMO
    message = "custom op `{op}` in {region} has a fake kernel that raises: Dynamo cannot trace it and breaks the graph"
    help = "make the fake kernel return an empty tensor of the output's shape (torch.empty_like(x))"
    dynamo_says = {FAKE_FAILS: "NotImplementedError/UnsupportedFakeTensorException when running FX node"}
    bad = (
        "import torch\n\n@torch.library.custom_op('mylib::f', mutates_args=())\n"
        "def op(x: torch.Tensor) -> torch.Tensor:\n    return x.clone()\n\n@op.register_fake\n"
        "def _(x):\n    raise NotImplementedError\n\n@torch.compile\ndef f(x):\n    return op(x) * 2\n",
    )
    good = (
        "import torch\n\n@torch.library.custom_op('mylib::f', mutates_args=())\n"
        "def op(x: torch.Tensor) -> torch.Tensor:\n    return x.clone()\n\n@op.register_fake\n"
        "def _(x):\n    return torch.empty_like(x)\n\n@torch.compile\ndef f(x):\n    return op(x) * 2\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value in self._failing_ops():
            self.report(node, confidence=Confidence.CERTAIN, says=FAKE_FAILS, op=node.func.value)

    def _failing_ops(self) -> set[str]:
        """Names of this file's custom ops whose fake kernel raises (the op's own name, or the
        name the op's `custom_op("ns::name")` gives, for `torch.library.register_fake("ns::name")`)."""
        if not hasattr(self, "_ops"):
            self._ops: set[str] = set()
            for fn in self.ctx.module.defined:
                for decorator in fn.node.decorators:  # from the index: the body is parsed only for a fake kernel
                    expr = decorator.decorator
                    if isinstance(expr, cst.Attribute) and expr.attr.value in REGISTER_FAKE:
                        op = dotted(expr.value)
                        if op is not None and _raises_first(fn.node):
                            self._ops.add(op)
        return self._ops
