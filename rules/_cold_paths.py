"""Branches that run only for diagnostics: a finding there is a `possible` break, not a likely one.

Library code warns about deprecated arguments, logs under `verbose=True` and raises on bad
input inside `forward`. Dynamo breaks at such a call only in the calls that take the branch,
which normal use never does. A branch counts as diagnostic when every test that leads to it is
a Python value (no tensor: a tensor test is a break of its own, BL102) and its block either ends
in `raise` (an error path) or holds nothing but messages: calls that only write output
(logging, `warnings.warn`, `print`), assignments of strings and `pass`.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from breaklint.finding import Confidence, Severity
from breaklint.rule import FileContext, Rule

Statement = "cst.BaseStatement | cst.BaseSmallStatement"  # annotations only: libcst loads on first use


def diagnostic_branch(ctx: FileContext, node: cst.CSTNode, is_message_call: Callable[[cst.Call], bool]) -> str | None:
    """The source of the test guarding `node` when `node` sits in a diagnostic branch of its own
    function (see the module docstring), else None. `is_message_call` says which calls only
    write output (the rule's own knowledge of logging and warnings)."""
    fn = ctx.function
    if fn is None:
        return None
    span = ctx.file.span(node)
    where = (span.start_line, span.start_col)
    innermost: tuple[cst.BaseSuite, list[tuple[cst.BaseExpression, bool]]] | None = None
    for suite, tests in ctx.arms_of(fn):
        inner = ctx.file.span(suite)
        if (inner.start_line, inner.start_col) <= where < (inner.end_line, inner.end_col):
            innermost = (suite, tests)  # arms_of gives outer branches before inner ones
    if innermost is None:
        return None
    suite, decided = innermost
    tests = [test for test, _ in decided]
    if any(ctx.value(test).tensorish for test in tests):
        return None
    if all(ctx.while_compiling(test) is holds for test, holds in decided):
        return None  # Dynamo knows every test, and takes the branch (`if not torch.jit.is_tracing():`)
    body = list(_statements(suite))
    if not body or not (_raises(body[-1]) or all(_is_message(s, is_message_call) for s in body)):
        return None
    return cst.Module([]).code_for_node(tests[-1])


def report_possible(rule: Rule, node: cst.CSTNode, test: str, says: str, **fields: str) -> None:
    """Report `node` as a possible break: severity info, confidence `possible`, with the test."""
    ctx = rule.ctx
    region = ctx.region
    if region is not None and (ctx.type_gate(node) or (False,))[0]:
        return  # never traced: it runs only for a type the tensor there is not
    where = f"compiled region {region.describe()}" if region else "a function (not compiled)"
    text = rule.message.format(region=where, **fields)
    text += f"; but only in a branch that just warns or raises (`{test}`): Dynamo breaks in the calls that take it"
    if ctx.loop_skips_frame(node):
        text += ", and then skips the whole function (the call is in a loop)"
    ctx.emit(rule.make_finding(ctx.file.display, ctx.file.span(node), text, Confidence.POSSIBLE, region, says,
                               target=ctx.target_torch, severity=Severity.INFO))


def report_conditional(rule: Rule, node: cst.CSTNode, condition: str, says: str, **fields: str) -> None:
    """Report `node` as a possible break that happens only when `condition` (a test Dynamo
    decides while tracing: a dtype, `self.training`) holds: severity info, confidence `possible`."""
    ctx = rule.ctx
    region = ctx.region
    if region is not None and (ctx.type_gate(node) or (False,))[0]:
        return  # never traced: it runs only for a type the tensor there is not
    where = f"compiled region {region.describe()}" if region else "a function (not compiled)"
    text = rule.message.format(region=where, **fields)
    text += f"; but only when `{condition}`: Dynamo decides that while tracing, and calls where it is false do not break"
    if ctx.loop_skips_frame(node):
        text += " (when it is true, Dynamo skips the whole function: the test is in a loop)"
    ctx.emit(rule.make_finding(ctx.file.display, ctx.file.span(node), text, Confidence.POSSIBLE, region, says,
                               target=ctx.target_torch, severity=Severity.INFO))


def training_arm(ctx: FileContext, node: cst.CSTNode) -> str | None:
    """`if self.training:` (or `if self.training and self.layerdrop > 0:`) around `node` in its
    own function: code that only a training call runs (LayerDrop, stochastic depth). The test's
    source, else None."""
    fn = ctx.function
    if fn is None:
        return None
    span = ctx.file.span(node)
    where = (span.start_line, span.start_col)
    for suite, tests in ctx.arms_of(fn):
        inner = ctx.file.span(suite)
        if not (inner.start_line, inner.start_col) <= where < (inner.end_line, inner.end_col):
            continue
        for test, holds in tests:
            source = cst.Module([]).code_for_node(test)
            if holds and ".training" in source and not ctx.value(test).tensorish:
                return source
    return None


def _statements(suite: cst.BaseSuite) -> list[Statement]:
    if isinstance(suite, cst.IndentedBlock):
        out: list[Statement] = []
        for statement in suite.body:
            out.extend(statement.body if isinstance(statement, cst.SimpleStatementLine) else [statement])
        return out
    return list(suite.body) if isinstance(suite, cst.SimpleStatementSuite) else []


def _raises(statement: Statement) -> bool:
    return isinstance(statement, cst.Raise)


def _is_message(statement: Statement, is_message_call: Callable[[cst.Call], bool]) -> bool:
    if isinstance(statement, cst.Pass):
        return True
    if isinstance(statement, cst.Expr):
        return isinstance(statement.value, cst.Call) and is_message_call(statement.value)
    if isinstance(statement, (cst.Assign, cst.AnnAssign, cst.AugAssign)) and statement.value is not None:
        targets = [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]
        return all(isinstance(t, cst.Name) for t in targets) and _is_text(statement.value)
    return False


def _is_text(expr: cst.BaseExpression) -> bool:
    """A string literal, an f-string, or `+`/`%` and conditionals built on one (`msg + " "`)."""
    if isinstance(expr, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
        return True
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Modulo)):
        return _is_text(expr.left) or _is_text(expr.right)
    if isinstance(expr, cst.IfExp):
        return _is_text(expr.body) and _is_text(expr.orelse)
    return False
