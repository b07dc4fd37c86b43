"""What a call of a project function gives: the join of what its `return` statements give.

Model code computes a value in a helper and hands it back, often in a tuple that the caller
unpacks (Longformer's `_get_global_attn_indices` returns `(counts.max(), ...)`). A call to a
function of the checked tree (a plain function, a method through `self.`, a staticmethod or
classmethod, another module's function) takes the join (values.join) of every `return`'s value,
judged from the callee's own body; when every `return` gives a tuple display of one length, each
element's join too, for `a, b = f(...)` and `f(...)[0]` (values.FunctionValues).

Precision first: nothing is learnt (None) when the call may reach several functions, a
decorator other than staticmethod/classmethod/a torch wrapper may change what it returns, the
callee is a generator or a coroutine, or the callee may fall off its end (None on that path).
A callee's parameter that is a tensor only by a guess from its body (values.FunctionValues.
guessed), returned as it is, is unknown: its callers may pass a Python number.

Bounded: a few calls deep (MAX_DEPTH), a function calling itself is unknown meanwhile, and each
function's returns are computed once per file checked (one shared cache). A callee's pass asks
only for the calls whose value may reach its returns (_feeding_calls); any other call of a
function not yet in the cache takes its slot as a deferred entry, judged when first read, so the
cache holds what it held when every call was judged at once. Another file's callee
is read from its tree as content (ModuleIndex.content_module), which the engine records as a
dependency of the reading file's cached result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import libcst as cst

from breaklint.index.imports import dotted
from breaklint.index.project import FunctionInfo, ProjectIndex
from breaklint.analysis.regions import CallResolver
from breaklint.analysis.values import PYTHON, UNKNOWN, FunctionValues, Kind, Value, join
from breaklint.infra.walk import content_nodes, own_code_nodes

MAX_DEPTH = 3  # helpers of helpers of helpers: deeper chains are rare and cost a pass each
# Decorators that hand back what the function returns (or leave it a plain function).
_TRANSPARENT = frozenset({"staticmethod", "classmethod"})


@dataclass(frozen=True)
class Returned:
    value: Value  # the join of every return's value
    elements: tuple[Value, ...] | None = None  # every return gives a tuple of this many: their joins


class ReturnFlow:
    """Per file checked: what each project function called from it returns."""

    def __init__(self, project: ProjectIndex, depth: int = 0, shared: dict[str, Any] | None = None,
                 feeding: frozenset[cst.Call] | None = None) -> None:
        self.project = project
        self.depth = depth
        # In a callee's pass: its calls whose value may reach its returns (None: every call counts).
        self.feeding = feeding
        # One cache for every depth: what a function returns does not depend on who asks.
        self._shared = shared if shared is not None else {"returns": {}, "resolver": CallResolver(project)}

    def of_call(self, call: cst.Call, scope: FunctionInfo) -> Returned | None:
        """What `call` (made in `scope`) gives, when it surely runs one function of the tree."""
        if self.depth + 1 >= MAX_DEPTH:
            return None
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "apply":
            return None  # autograd.Function.apply runs forward through the autograd machinery
        targets = self._shared["resolver"].function_refs(call.func, scope)
        if len(targets) != 1:
            return None
        fn = _own_code(targets[0])
        cache: dict[FunctionInfo, Returned | _Deferred | None] = self._shared["returns"]
        if self.feeding is not None and call not in self.feeding and self.depth + 2 >= MAX_DEPTH:
            # Its value reaches none of the returns read. It would be judged by a last-level pass,
            # which reads no cache (its calls give nothing), so judging it later gives the same.
            if fn not in cache:
                cache[fn] = _Deferred(self.depth)
            return None
        if fn not in cache:
            cache[fn] = None  # recursion: a function that calls itself returns unknown meanwhile
            cache[fn] = self._returned(fn)
        found = cache[fn]
        if isinstance(found, _Deferred):
            found = cache[fn] = ReturnFlow(self.project, found.depth, self._shared)._returned(fn)
        return found

    def _returned(self, fn: FunctionInfo) -> Returned | None:
        node = fn.node
        # Its decorators first: the summary has them, its body is parsed only when asked.
        if not isinstance(node, cst.FunctionDef) or not _transparent(fn) or node.asynchronous is not None:
            return None
        returns = _returns_of(fn, node)
        if returns is None:
            return None
        outer = fn
        while outer.parent is not None:
            outer = outer.parent
        # Its pass judges its callees only below the last level: which of its calls feed its returns.
        feeding = _feeding_calls(outer, returns) if self.depth + 2 < MAX_DEPTH else None
        flow = ReturnFlow(self.project, self.depth + 1, self._shared, feeding)
        values = FunctionValues(outer, self.project, returns=flow)
        found = [_returned_value(r.value, values, fn) for r in returns]
        tuples = [_tuple_elements(r.value) for r in returns]
        elements = None
        if all(t is not None for t in tuples) and len({len(t) for t in tuples}) == 1:  # type: ignore[arg-type]
            elements = tuple(join([_returned_value(t[i], values, fn) for t in tuples])  # type: ignore[index]
                             for i in range(len(tuples[0])))  # type: ignore[arg-type]
        return Returned(join(found), elements)


@dataclass(frozen=True)
class _Deferred:
    """A cache slot taken by a call whose value was not needed: judged (at `depth`) when read."""
    depth: int


def _returns_of(fn: FunctionInfo, node: cst.FunctionDef) -> list[cst.Return] | None:
    """fn's own `return` statements, or None when a call of it may give something else: it
    yields, has none, or may fall off its end (None on that path). Read from its code alone."""
    def find() -> list[cst.Return] | None:
        returns, yields = _own_returns(node)
        return None if yields or not returns or _may_fall_off(node.body) else returns

    return fn.derived("returns", find)  # another file's callee is judged by every file calling it


def _feeding_calls(outer: FunctionInfo, returns: list[cst.Return]) -> frozenset[cst.Call]:
    """The calls in outer's code whose value may reach one of `returns` (a backward slice).
    FunctionValues carries values from one statement to another only through the names it binds
    (by name, in every scope of outer's pass), so: the calls within a returned expression or
    within what is bound to a name such an expression reads, and so on."""
    bindings = outer.derived("bindings", lambda: _bindings(outer.node))
    pending: list[cst.BaseExpression] = [r.value for r in returns if r.value is not None]
    seen_names: set[str] = set()
    seen: set[cst.CSTNode] = set()
    calls: set[cst.Call] = set()
    while pending:
        expr = pending.pop()
        if expr in seen:
            continue
        seen.add(expr)
        for node in content_nodes(expr):
            kind = type(node)
            if kind is cst.Call:
                calls.add(node)  # type: ignore[arg-type]
            elif kind is cst.Name and node.value not in seen_names:  # type: ignore[attr-defined]
                seen_names.add(node.value)  # type: ignore[attr-defined]
                pending.extend(bindings.get(node.value, ()))  # type: ignore[attr-defined]
    return frozenset(calls)


def _bindings(function: cst.FunctionDef) -> dict[str, list[cst.BaseExpression]]:
    """Each name bound in the function's code (nested defs, lambdas and comprehensions too) and
    the expressions it is bound from: assignments, `for` and comprehension targets, walruses.
    Every name under a target counts (`a[i] = v` too): more than FunctionValues binds, never less."""
    found: dict[str, list[cst.BaseExpression]] = {}
    for node in content_nodes(function):
        kind = type(node)
        if kind is cst.Assign:
            targets = [t.target for t in node.targets]  # type: ignore[attr-defined]
            source = node.value  # type: ignore[attr-defined]
        elif kind is cst.AnnAssign or kind is cst.AugAssign or kind is cst.NamedExpr:
            targets, source = [node.target], node.value  # type: ignore[attr-defined]
        elif kind is cst.For or kind is cst.CompFor:
            targets, source = [node.target], node.iter  # type: ignore[attr-defined]
        else:
            continue
        if source is None:
            continue
        for target in targets:
            for inner in content_nodes(target):
                if type(inner) is cst.Name:
                    found.setdefault(inner.value, []).append(source)  # type: ignore[attr-defined]
    return found


def _returned_value(expr: cst.BaseExpression | None, values: FunctionValues, fn: FunctionInfo) -> Value:
    if expr is None:
        return PYTHON  # a bare `return`: None
    if isinstance(expr, cst.Name) and expr.value in values.guessed and expr.value not in fn.assigns:
        return UNKNOWN  # a parameter that is a tensor only by a guess, handed back as it is
    value = values.of(expr)
    return UNKNOWN if value.kind is Kind.MODULE else value


def _tuple_elements(expr: cst.BaseExpression | None) -> list[cst.BaseExpression] | None:
    if not isinstance(expr, cst.Tuple) or any(isinstance(e, cst.StarredElement) for e in expr.elements):
        return None
    return [e.value for e in expr.elements]


def _own_code(fn: FunctionInfo) -> FunctionInfo:
    """fn with its real body: another file's function as built from that file's tree, read as
    content (recorded as a dependency; nothing here is matched with the reading file's nodes)."""
    content = getattr(fn.module.file, "content_module", None)  # only a shallow module has one
    return content.functions.get(fn.qualname, fn) if content is not None else fn


def _transparent(fn: FunctionInfo) -> bool:
    """Whether fn's decorators leave its return value as it is."""
    for decorator in fn.node.decorators:
        expr = decorator.decorator
        name = dotted(expr.func if isinstance(expr, cst.Call) else expr) or ""
        resolved = fn.module.imports.resolve_dotted(name) if name else ""
        if name not in _TRANSPARENT and not resolved.startswith("torch."):
            return False
    return True


def _own_returns(node: cst.FunctionDef) -> tuple[list[cst.Return], bool]:
    """The `return` statements of this def (not of the defs and lambdas nested in it), and
    whether it yields (a generator: its call gives a generator object)."""
    found: list[cst.Return] = []
    yields = False
    for inner in own_code_nodes(node):
        kind = type(inner)
        if kind is cst.Return:
            found.append(inner)  # type: ignore[arg-type]
        elif kind is cst.Yield:
            yields = True
    return found, yields


def _may_fall_off(body: cst.BaseSuite) -> bool:
    """Whether control may reach the end of this block (then the function returns None).
    Conservative: only a last `return`/`raise`, or an if/else whose every arm ends so, ends it."""
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        statements = body.body if isinstance(body, cst.SimpleStatementSuite) else []
        return not any(isinstance(s, (cst.Return, cst.Raise)) for s in statements)
    last = body.body[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return not any(isinstance(s, (cst.Return, cst.Raise)) for s in last.body)
    if isinstance(last, cst.If):
        branch: cst.If | cst.Else | None = last
        while isinstance(branch, cst.If):
            if _may_fall_off(branch.body):
                return True
            branch = branch.orelse
        return branch is None or _may_fall_off(branch.body)
    if isinstance(last, cst.With):
        return _may_fall_off(last.body)
    return True
