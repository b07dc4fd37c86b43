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
function's returns are computed once per file checked (one shared cache). Another file's callee
is read from its tree as content (ModuleIndex.content_module), which the engine records as a
dependency of the reading file's cached result.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import libcst as cst

from breaklint.index.imports import dotted
from breaklint.index.project import FunctionInfo, ProjectIndex
from breaklint.analysis.regions import CallResolver
from breaklint.analysis.values import PYTHON, UNKNOWN, FunctionValues, Kind, Value, join
from breaklint.infra.walk import own_code_nodes

MAX_DEPTH = 3  # helpers of helpers of helpers: deeper chains are rare and cost a pass each
# Decorators that hand back what the function returns (or leave it a plain function).
_TRANSPARENT = frozenset({"staticmethod", "classmethod"})


@dataclass(frozen=True)
class Returned:
    value: Value  # the join of every return's value
    elements: tuple[Value, ...] | None = None  # every return gives a tuple of this many: their joins


class ReturnFlow:
    """Per file checked: what each project function called from it returns."""

    def __init__(self, project: ProjectIndex, depth: int = 0, shared: dict[str, Any] | None = None) -> None:
        self.project = project
        self.depth = depth
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
        cache: dict[FunctionInfo, Returned | None] = self._shared["returns"]
        if fn not in cache:
            cache[fn] = None  # recursion: a function that calls itself returns unknown meanwhile
            cache[fn] = self._returned(fn)
        return cache[fn]

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
        values = FunctionValues(outer, self.project, returns=ReturnFlow(self.project, self.depth + 1, self._shared))
        found = [_returned_value(r.value, values, fn) for r in returns]
        tuples = [_tuple_elements(r.value) for r in returns]
        elements = None
        if all(t is not None for t in tuples) and len({len(t) for t in tuples}) == 1:  # type: ignore[arg-type]
            elements = tuple(join([_returned_value(t[i], values, fn) for t in tuples])  # type: ignore[index]
                             for i in range(len(tuples[0])))  # type: ignore[arg-type]
        return Returned(join(found), elements)


# What each callee's code says of its returns (see _returns_of), for as long as the function
# lives: another file's callee is judged again by every file that calls it.
_OWN_RETURNS: weakref.WeakKeyDictionary[FunctionInfo, list[cst.Return] | None] = weakref.WeakKeyDictionary()


def _returns_of(fn: FunctionInfo, node: cst.FunctionDef) -> list[cst.Return] | None:
    """fn's own `return` statements, or None when a call of it may give something else: it
    yields, has none, or may fall off its end (None on that path). Read from its code alone."""
    if fn in _OWN_RETURNS:
        return _OWN_RETURNS[fn]
    returns, yields = _own_returns(node)
    found = None if yields or not returns or _may_fall_off(node.body) else returns
    _OWN_RETURNS[fn] = found
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
