"""BL119 side-effect-in-higher-order-op: outer state mutated in the body of checkpoint or wrap."""

from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import FunctionInfo, visit

from ._hop import body_of, HOP_CALLS, in_hop_body
from .mutated_python_state import MutatedPythonState

UNSAFE = "GB0067"  # a mutation of a variable outside the body, at the mutation
# An attribute of an outer object (`self.calls += 1` in a method passed as `self._inner`) left
# changed when the body ends: Dynamo reports it at the higher-order op's call (torch 2.13).
NOT_RESTORED = "GB4413"


class SideEffectInHigherOrderOp(MutatedPythonState):
    """## What it does
    Finds Python state outside the body of a higher-order op changed inside it:
    `torch.utils.checkpoint.checkpoint(body, x)` or `wrap(body, x)` where `body` appends to a
    module-level list, assigns into a module-level dict (`COUNTS["calls"] += 1`), updates a
    `global`, or (a method passed as `self._inner`) updates an attribute of `self`.

    ## Why is this bad?
    Dynamo traces the body of a higher-order op as a subgraph of its own and cannot replay a
    side effect on the state around it, so it gives up on the op: the graph breaks there, and
    the checkpointed region runs eagerly (no fusion, no recomputation saved by the compiler).
    The same mutation outside a higher-order op is a recompile (BL201), not a break.

    ## How to fix
    Keep the body pure: return what it computed and do the bookkeeping after the call
    (`out = checkpoint(block, x); self.calls += 1`), or keep counters as tensors (buffers)
    updated with in-place tensor ops.

    ## When it is fine
    Outside compiled code. A mutation that the body undoes before it returns (a flag set and
    restored by a context manager) is supported.

    ## Dynamo says
    `HOP: Unsafe side effect` (GB0067) at the mutation; `HOP: Non-nullified side effect`
    (GB4413, torch 2.13) at the call, for an attribute of an outer object left changed.
    """

    code = "BL119"
    name = "side-effect-in-higher-order-op"
    stage = Stage.DYNAMO
    message = "{what} in the body of a higher-order op in {region} is a side effect Dynamo cannot replay: it forces a graph break"
    help = "keep the body pure: return values and update Python state after the checkpoint/wrap call"
    dynamo_says = {
        UNSAFE: "HOP: Unsafe side effect",
        NOT_RESTORED: "HOP: Non-nullified side effect",
    }
    bad = (
        "import torch\nimport torch.utils.checkpoint\n\nSEEN = []\n\ndef block(x):\n    SEEN.append(1)\n"
        "    return x.sin()\n\n@torch.compile\ndef f(x):\n    return torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)\n",
    )
    good = (
        "import torch\nimport torch.utils.checkpoint\n\nSEEN = []\n\ndef block(x):\n    return x.sin()\n\n"
        "@torch.compile\ndef f(x):\n    y = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)\n"
        "    SEEN.append(1)\n    return y\n",
    )

    def _judged_here(self) -> bool:
        if not hasattr(self, "_hop_bodies"):
            super()._judged_here()
        return in_hop_body(self.ctx.function, self._hop_bodies)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Subscript):  # COUNTS["calls"] += 1
            self._check_container(node.target.value, node, "item update")
        else:
            super().visit_AugAssign(node)

    def _check_update(self, target: cst.BaseExpression, node: cst.CSTNode) -> None:
        if isinstance(target, cst.Attribute):
            return  # an attribute left changed is reported at the call (visit_Call)
        super()._check_update(target, node)

    def report(self, node: cst.CSTNode, *, confidence: Confidence, says: str | tuple[str, ...] | None = None,
               help: str | None = None, **fields: str) -> None:
        super().report(node, confidence=confidence, says=UNSAFE if says == "recompile" else says, help=help, **fields)

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        caller = self.ctx.function
        if caller is None or not node.args or self.ctx.resolve(node.func) not in HOP_CALLS:
            return
        body = body_of(self.ctx, caller, node)
        if body is None or body.class_info is None or not isinstance(node.args[0].value, cst.Attribute):
            return
        changed = _self_updates(body)
        if changed:
            self.report(node, confidence=Confidence.CERTAIN, says=NOT_RESTORED,
                        what=f"`self.{changed}` update (in `{body.qualname}`)")


def _self_updates(method: FunctionInfo) -> str | None:
    """The first attribute of `self` a method assigns or updates, not in a nested def."""
    self_name = method.self_name
    found: list[str] = []

    class _Updates(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is method.node

        def _target(self, target: cst.BaseExpression) -> None:
            if (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                    and target.value.value == self_name):
                found.append(target.attr.value)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self._target(node.target)

        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                self._target(target.target)

    visit(method.node, _Updates(), trivia=False)
    return found[0] if found else None
