"""BL121 exception-escapes-region: a `raise` (or a failing `assert` in a `with`) leaving the traced code."""

from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Severity, Stage
from breaklint.rule import FileContext, FunctionInfo, Rule, Visitor, real_node, visit

OBSERVED = "GB0088"  # Dynamo saw the exception leave the frame it traces
# Statements a `raise` can sit in without Dynamo knowing whether it runs (an `if` on a Python
# value is decided while tracing, a loop may run zero times). Names, not classes: libcst is
# imported on first use (infra/deferred.py), and a warm run never needs it.
CONDITIONAL = frozenset({"If", "For", "While", "Match"})
HANDLERS = frozenset({"Try", "TryStar", "ExceptHandler"})


_COMPOUND = ("If", "For", "While", "Match", "Try", "TryStar", "With", "ExceptHandler")


class _Enclosing(Visitor):
    """For each `raise` and `assert` of one function's own code, the compound statements that
    hold it, outermost first: one walk per function, however many it holds."""

    def __init__(self, function: cst.FunctionDef) -> None:
        self.function = function
        self.stack: list[cst.CSTNode] = []
        self.found: dict[int, list[cst.CSTNode]] = {}  # by id: the nodes live as long as the tree
        self.returns_before: set[int] = set()  # the raises a `return` comes before, in the source
        self._returned = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        kind = type(node)
        if (kind is cst.FunctionDef or kind is cst.Lambda) and node is not self.function:
            return False
        if kind is cst.Return:
            self._returned = True
        elif kind is cst.Raise or kind is cst.Assert:
            self.found[id(node)] = list(self.stack)
            if self._returned:
                self.returns_before.add(id(node))
        elif kind.__name__ in _COMPOUND:
            self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.stack and self.stack[-1] is original_node:
            self.stack.pop()


class ExceptionEscapesRegion(Rule):
    """## What it does
    Finds exceptions that leave a compiled region: a `raise` in a compiled function outside any
    `try` of its own, and an `assert` inside a `with` block (a context manager Dynamo entered).
    A `raise` that always runs is reported; an `assert` in a `with` is a `possible` break, for
    the calls where it fails. A `raise` under an `if` or in a loop (an error path for bad
    input) is not reported: it breaks only in the calls that take it, which valid calls do not;
    nor is one after a `return` in the function (the fall-through of a dispatch, `if how ==
    "sum": return ...` and then `raise ValueError(how)`).

    ## Why is this bad?
    Dynamo traces the exception being raised and cannot end the graph with it: it stops tracing
    there (the frame is skipped and runs eagerly) and the exception is raised by the eager run.
    Inside a `with`, the context manager's exit cannot be replayed either. When the error path
    is taken on purpose (a sentinel exception for control flow, `raise StopIteration`), every
    call pays for it.

    ## How to fix
    Do not use exceptions for control flow in compiled code: return a flag or a tensor instead.
    Validate inputs before calling the compiled function. Keep an `assert` out of `with` blocks
    (or use `torch._assert_async` on tensor conditions).

    ## When it is fine
    An error path that normal calls never take. A `raise` caught by a `try` in the same function
    is traced. A `raise` in a function reached from the entry point is reported `likely`: a
    `try` in a caller would catch it.

    ## Dynamo says
    `Observed exception` (GB0088).
    """

    code = "BL121"
    name = "exception-escapes-region"
    stage = Stage.DYNAMO
    message = "{what} in {region} leaves the traced code with an exception: Dynamo stops tracing and runs the frame eagerly"
    help = "do not raise for control flow in compiled code: return a flag or a tensor; validate inputs before the call"
    dynamo_says = {OBSERVED: "Observed exception"}
    bad = ("import torch\n\nclass Stop(Exception):\n    pass\n\n@torch.compile\ndef f(x):\n    y = x * 2\n"
           "    raise Stop(y)\n",)
    good = ("import torch\n\n@torch.compile\ndef f(x):\n    try:\n        raise KeyError('k')\n    except KeyError:\n"
            "        return x * 2\n",)

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._by_function: dict[FunctionInfo, _Enclosing] = {}

    def _walked(self, fn: FunctionInfo) -> _Enclosing:
        found = self._by_function.get(fn)
        if found is None:
            found = self._by_function[fn] = _Enclosing(real_node(fn.node))  # type: ignore[arg-type]
            visit(found.function, found, trivia=False)
        return found

    def _enclosing(self, fn: FunctionInfo, node: cst.CSTNode) -> list[cst.CSTNode]:
        return self._walked(fn).found.get(id(node), [])

    def visit_Raise(self, node: cst.Raise) -> None:
        fn = self.ctx.function
        if fn is None or node.exc is None:
            return  # a bare `raise` re-raises in a handler: the exception was already observed
        enclosing = self._enclosing(fn, node)
        if any(type(s).__name__ in HANDLERS for s in enclosing):
            return
        if any(type(s).__name__ in CONDITIONAL for s in enclosing):
            return  # an error path: Dynamo breaks only in the calls that take it (not reported)
        if id(node) in self._walked(fn).returns_before:
            return  # the fall-through of a dispatch (`if how == "sum": return ...`): the same
        region = self.ctx.region
        entry = region is not None and region.path == (fn.qualname,)
        self.report(node, confidence=Confidence.CERTAIN if entry else Confidence.LIKELY, says=OBSERVED,
                    what="`raise`")

    def visit_Assert(self, node: cst.Assert) -> None:
        fn = self.ctx.function
        if fn is None:
            return
        enclosing = self._enclosing(fn, node)
        if not any(isinstance(s, cst.With) for s in enclosing) or any(type(s).__name__ in HANDLERS for s in enclosing):
            return
        if self.ctx.value(node.test).tensorish:
            return  # an assert on a tensor becomes an async assert in the graph
        region = self.ctx.region
        where = f"compiled region {region.describe()}" if region else "a function (not compiled)"
        test = cst.Module([]).code_for_node(node.test)
        text = self.message.format(region=where, what="`assert` inside a `with` block")
        text += f"; but only in the calls where it fails (`{test}`)"
        self.ctx.emit(self.make_finding(self.ctx.file.display, self.ctx.file.span(node), text, Confidence.POSSIBLE,
                                        region, OBSERVED, target=self.ctx.target_torch, severity=Severity.INFO))
