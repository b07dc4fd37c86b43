"""BL122 iterator-argument: a compiled function iterates an iterator or dict view it was passed."""

from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule

NO_TP_ITER = "GB0811"  # "missing tp_iter": Dynamo cannot iterate an iterator object it did not make
# Calls that make an iterator (or a dict view) rather than a container.
ITERATOR_BUILTINS = frozenset({"iter", "zip", "map", "filter", "reversed", "enumerate"})
DICT_VIEWS = frozenset({"items", "keys", "values"})


def _iterator(expr: cst.BaseExpression, resolve) -> str | None:  # type: ignore[no-untyped-def]
    """What kind of iterator `expr` makes (`iter(...)`, `d.items()`), or None."""
    if not isinstance(expr, cst.Call):
        return None
    if isinstance(expr.func, cst.Name) and resolve(expr.func) in ITERATOR_BUILTINS:
        return f"{expr.func.value}(...)"
    if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in DICT_VIEWS and not expr.args:
        return f".{expr.func.attr.value}()"
    return None


class IteratorArgument(Rule):
    """## What it does
    Finds a `for` loop in a compiled function over one of its parameters when a call of that
    function in the same file passes an iterator or a dict view for it: `step(iter(batches), x)`,
    `step(zip(names, tensors), x)`, `step(weights.items(), x)`.

    ## Why is this bad?
    Dynamo makes its own model of the iterators it creates, but an iterator object that comes
    in as an input is opaque to it: it cannot step it without running it. It ends the graph at
    the loop and, since the break is in a loop, runs the whole function eagerly.

    ## How to fix
    Pass a container instead (`list(zip(names, tensors))`, `dict(weights)`, the list itself)
    and iterate it inside; or build the iterator inside the compiled function
    (`for name, t in zip(names, tensors)`).

    ## When it is fine
    Outside compiled code; or when the argument is a list, tuple or dict.

    ## Dynamo says
    `missing tp_iter` (GB0811, torch 2.13).
    """

    code = "BL122"
    name = "iterator-argument"
    stage = Stage.DYNAMO
    message = "`for` over `{param}` in {region}, which a call passes as an iterator ({made}): Dynamo cannot iterate it and skips the frame"
    help = "pass a list or dict instead (list(zip(...)), dict(d)), or build the iterator inside the compiled function"
    dynamo_says = {NO_TP_ITER: "missing tp_iter"}
    bad = ("import torch\n\n@torch.compile\ndef f(pairs, x):\n    for k, v in pairs:\n        x = x + v\n"
           "    return x\n\ndef run(x):\n    return f(zip('ab', [x, x]), x)\n",)
    good = ("import torch\n\n@torch.compile\ndef f(pairs, x):\n    for k, v in pairs:\n        x = x + v\n"
            "    return x\n\ndef run(x):\n    return f(list(zip('ab', [x, x])), x)\n",)

    def visit_For(self, node: cst.For) -> None:
        fn, region = self.ctx.function, self.ctx.region
        if fn is None or region is None or region.path != (fn.qualname,) or not isinstance(node.iter, cst.Name):
            return
        param = node.iter.value
        positional = [p.name.value for p in (*fn.node.params.posonly_params, *fn.node.params.params)]
        if param not in positional and param not in [p.name.value for p in fn.node.params.kwonly_params]:
            return
        if fn.binds_locally(param) and param in fn.assigns:
            return  # rebound before the loop: no longer what was passed
        for call in self.ctx.entry_calls(fn):
            passed = _argument(call, param, positional)
            made = _iterator(passed, self.ctx.module.imports.resolve) if passed is not None else None
            if made is not None:
                self.report(node.iter, confidence=Confidence.CERTAIN, says=NO_TP_ITER, param=param, made=made)
                return


def _argument(call: cst.Call, param: str, positional: list[str]) -> cst.BaseExpression | None:
    """The expression a call passes to `param` (by keyword, or by position)."""
    index = 0
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is not None:
            if arg.keyword.value == param:
                return arg.value
            continue
        if index < len(positional) and positional[index] == param:
            return arg.value
        index += 1
    return None
