"""Functions traced as the body of a higher-order op (`checkpoint(body, x)`, `wrap(body, x)`).

Dynamo traces such a body as a subgraph of its own and refuses side effects on state outside
it: a mutation there is a graph break ("HOP: Unsafe side effect", GB0067), not the recompile it
would be in plain compiled code (read from real runs on torch 2.13, testdata/rules/BL119).
"""

from __future__ import annotations

import libcst as cst

from breaklint.rule import dotted, FileContext, FunctionInfo

# The higher-order ops whose first argument is the body; `torch.cond` is not here: a side effect
# in its branches makes Dynamo raise (UncapturedHigherOrderOpError), not break.
HOP_CALLS = frozenset({"torch.utils.checkpoint.checkpoint", "torch._higher_order_ops.wrap.wrap",
                       "torch.ops.higher_order.wrap"})
HOP_NAMES = frozenset(name.rpartition(".")[2] for name in HOP_CALLS)  # a cheap test before resolving


def hop_calls(ctx: FileContext) -> list[tuple[FunctionInfo, cst.Call]]:
    """Every call of a higher-order op in this file's compiled functions, with the function making it."""
    return [(fn, call) for fn in ctx.regions if fn.module is ctx.module for call in fn.calls
            if call.args and (dotted(call.func) or "").rpartition(".")[2] in HOP_NAMES
            and ctx.resolve(call.func) in HOP_CALLS]


def body_of(ctx: FileContext, caller: FunctionInfo, call: cst.Call) -> FunctionInfo | None:
    """The function a higher-order op call traces: a def nested in the caller or at module level
    (`checkpoint(block, x)`), or a method of the caller's class (`checkpoint(self._inner, x)`)."""
    body = call.args[0].value
    if isinstance(body, cst.Name):
        nested = [fn for fn in caller.nested if fn.name == body.value]
        if nested:
            return nested[-1]
        return ctx.module.functions.get(body.value)
    if (isinstance(body, cst.Attribute) and isinstance(body.value, cst.Name) and caller.class_info is not None
            and body.value.value == caller.self_name):
        return caller.class_info.methods.get(body.attr.value)
    return None


def hop_bodies(ctx: FileContext) -> set[FunctionInfo]:
    """The functions of this file that some higher-order op call of this file traces."""
    return {body for fn, call in hop_calls(ctx) for body in [body_of(ctx, fn, call)] if body is not None}


def in_hop_body(fn: FunctionInfo | None, bodies: set[FunctionInfo]) -> bool:
    """Whether `fn` is (or is nested in) one of the bodies."""
    while fn is not None:
        if fn in bodies:
            return True
        fn = fn.parent
    return False
