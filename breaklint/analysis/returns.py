"""What a call of a project function gives: the join of what its `return` statements give.

Model code computes a value in a helper and hands it back, often in a tuple that the caller
unpacks (Longformer's `_get_global_attn_indices` returns `(counts.max(), ...)`). A call to a
function of the checked tree (a plain function, a method through `self.`, a staticmethod or
classmethod, another module's function) takes the join (values.join) of every `return`'s value,
judged from the callee's own body; when every `return` gives a tuple display of one length, each
element's join too, for `a, b = f(...)`, `f(...)[0]` and `g(*f(...))` (values.FunctionValues,
arguments.py), and when every one gives a dict display of the same string keys, each key's,
for `g(**f(...))`.

A return annotation that says tensor (`-> Tensor`, `-> Tuple[Tensor, Tensor]`, or the same in a
PEP 484 type comment) is taken as it is, without a pass over the body (which an optional
extension's path, `torch_sparse.matmul(...)`, would leave unknown).

Precision first: nothing is learnt (None) when the call may reach several functions, a
decorator other than staticmethod/classmethod/a torch wrapper may change what it returns, the
callee is a generator or a coroutine, or the callee may fall off its end (None on that path).
A callee's parameter that is a tensor only by a guess from its body (values.FunctionValues.
guessed), returned as it is, is unknown: its callers may pass a Python number.

Bounded: a few calls deep (MAX_DEPTH), a function calling itself is unknown meanwhile, and each
function's returns are computed once per file checked (one shared cache). A callee's pass asks
only for the calls whose value may reach its returns (_feeding_calls); any other call of a
function not yet in the cache takes its slot as a deferred entry, judged when first read, so the
cache holds what it held when every call was judged at once. A last-level pass, whose calls
give nothing and touch no cache, runs only the statements its returns' values may depend on
(_statements_read). Another file's callee
is read from its tree as content (ModuleIndex.content_module), which the engine records as a
dependency of the reading file's cached result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import libcst as cst

from breaklint.index.imports import dotted
from breaklint.index.project import FunctionInfo, ProjectIndex
from breaklint.analysis.regions import CallResolver
from breaklint.analysis.values import PYTHON, UNKNOWN, FunctionValues, Kind, Value, annotated_return, join
from breaklint.infra.walk import content_nodes, own_code_nodes

MAX_DEPTH = 3  # helpers of helpers of helpers: deeper chains are rare and cost a pass each
# Decorators that hand back what the function returns (or leave it a plain function).
_TRANSPARENT = frozenset({"staticmethod", "classmethod"})


@dataclass(frozen=True)
class Returned:
    value: Value  # the join of every return's value
    elements: tuple[Value, ...] | None = None  # every return gives a tuple of this many: their joins
    items: tuple[tuple[str, Value], ...] | None = None  # every return gives a dict of these string keys: their joins


class ReturnFlow:
    """Per file checked: what each project function called from it returns."""

    def __init__(self, project: ProjectIndex, depth: int = 0, shared: dict[str, Any] | None = None,
                 feeding: Callable[[], frozenset[cst.Call] | None] | None = None) -> None:
        self.project = project
        self.depth = depth
        # In a callee's pass: its calls whose value may reach its returns (None: every call
        # counts), found when first asked: a pass whose calls reach no function of the tree
        # never needs them.
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
        if self.feeding is not None and self.depth + 2 >= MAX_DEPTH and not _feeds(call, self.feeding()):
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
        annotated = annotated_return(node)
        if annotated is not None:  # `-> Tensor`, `-> Tuple[Tensor, Tensor]`: what it says, no pass over its body
            return Returned(*annotated)
        returns = _returns_of(fn, node)
        if returns is None:
            return None
        outer = fn
        while outer.parent is not None:
            outer = outer.parent
        if self.depth + 2 < MAX_DEPTH:
            # Its pass judges its callees: only the calls that feed its returns. It runs every
            # statement, as any call in them of a function not yet judged takes its slot (of_call).
            feeding, only = lambda: fn.derived("feeding calls", lambda: _feeding_calls(outer, returns)), None
        else:
            # The last level: its calls give nothing and touch no cache, so only the statements
            # that its returns' values depend on are run.
            feeding, only = None, fn.derived("statements read", lambda: _statements_read(outer, returns))
        flow = ReturnFlow(self.project, self.depth + 1, self._shared, feeding)
        values = FunctionValues(outer, self.project, returns=flow, only=only)
        found = [_returned_value(r.value, values, fn) for r in returns]
        tuples = [_tuple_elements(r.value) for r in returns]
        elements = None
        if all(t is not None for t in tuples) and len({len(t) for t in tuples}) == 1:  # type: ignore[arg-type]
            elements = tuple(join([_returned_value(t[i], values, fn) for t in tuples])  # type: ignore[index]
                             for i in range(len(tuples[0])))  # type: ignore[arg-type]
        dicts = [_dict_items(r.value) for r in returns]
        items = None
        if all(d is not None for d in dicts) and len({tuple(d) for d in dicts}) == 1:  # type: ignore[arg-type]
            items = tuple((key, join([_returned_value(d[key], values, fn) for d in dicts]))  # type: ignore[index]
                          for key in dicts[0])  # type: ignore[union-attr]
        return Returned(join(found), elements, items)


def _feeds(call: cst.Call, feeding: frozenset[cst.Call] | None) -> bool:
    return feeding is None or call in feeding


@dataclass(frozen=True)
class _Deferred:
    """A cache slot taken by a call whose value was not needed: judged (at `depth`) when read."""
    depth: int


def _returns_of(fn: FunctionInfo, node: cst.FunctionDef) -> list[cst.Return] | None:
    """fn's own `return` statements, or None when a call of it may give something else: it
    yields, has none, or may fall off its end (None on that path). Read from its code alone."""
    def find() -> list[cst.Return] | None:
        if _may_fall_off(node.body):
            return None  # known from its last statements: no walk of its code
        returns, yields = _own_returns(node)
        return None if yields or not returns else returns

    return fn.derived("returns", find)  # another file's callee is judged by every file calling it


def _feeding_calls(outer: FunctionInfo, returns: list[cst.Return]) -> frozenset[cst.Call]:
    """The calls in outer's code whose value may reach one of `returns` (a backward slice).
    FunctionValues carries values from one statement to another only through the names it binds
    (by name, in every scope of outer's pass), so: the calls within a returned expression or
    within what is bound to a name such an expression reads, and so on."""
    return _backward_slice(outer, returns)[0]


def _statements_read(outer: FunctionInfo, returns: list[cst.Return]) -> frozenset[cst.CSTNode]:
    """The statements of outer's code (of its blocks, at any depth) that a pass must run for the
    values of `returns`: those that hold one of them, or that may bind a name the backward
    slice reads (FunctionValues.only). Over-approximated: a compound statement whose header
    mentions such a name, or one of a kind not known here, is run, and so is all that it holds."""
    names = _backward_slice(outer, returns)[1]
    wanted = set(returns)
    found: set[cst.CSTNode] = set()

    def mentions(*nodes: cst.CSTNode | None) -> bool:
        return any(type(inner) is cst.Name and inner.value in names  # type: ignore[attr-defined]
                   for node in nodes if node is not None for inner in content_nodes(node))

    def block(body: cst.CSTNode | None) -> bool:
        if not isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)):
            return False
        read = False
        for statement in body.body:
            if needed(statement):
                found.add(statement)
                read = True
        return read

    def needed(stmt: cst.CSTNode) -> bool:
        kind = type(stmt)
        if kind is cst.SimpleStatementLine or isinstance(stmt, cst.BaseSmallStatement):
            smalls = stmt.body if kind is cst.SimpleStatementLine else (stmt,)  # type: ignore[attr-defined]
            return any(small in wanted for small in smalls) or not names.isdisjoint(_bound_names(stmt))
        if kind is cst.If:
            orelse = stmt.orelse  # type: ignore[attr-defined]
            tail = needed(orelse) if isinstance(orelse, cst.If) else block(orelse.body) if orelse else False
            return block(stmt.body) | tail | mentions(stmt.test)  # type: ignore[attr-defined]
        if kind is cst.For or kind is cst.While:
            orelse = stmt.orelse  # type: ignore[attr-defined]
            header = (stmt.target, stmt.iter) if kind is cst.For else (stmt.test,)  # type: ignore[attr-defined]
            return block(stmt.body) | (block(orelse.body) if orelse else False) | mentions(*header)  # type: ignore[attr-defined]
        if kind is cst.With:
            return block(stmt.body) | mentions(*stmt.items)  # type: ignore[attr-defined]
        if kind is cst.Try:
            parts = [block(stmt.body)]  # type: ignore[attr-defined]
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                parts.append(block(handler.body) | mentions(handler.type, handler.name))
            parts += [block(extra.body) for extra in (stmt.orelse, stmt.finalbody) if extra is not None]  # type: ignore[attr-defined]
            return any(parts)
        if kind is cst.FunctionDef:
            header = (stmt.name, stmt.params, *stmt.decorators)  # type: ignore[attr-defined]
            return block(stmt.body) | mentions(*header)  # type: ignore[attr-defined]
        if kind is cst.ClassDef:
            return stmt.name.value in names  # type: ignore[attr-defined]  # its body is not run
        for node in content_nodes(stmt):  # match, try/except*: all of it
            if isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite)):
                found.update(node.body)
        return True

    block(outer.node.body)
    return frozenset(found)


def _bound_names(stmt: cst.CSTNode) -> set[str]:
    """The names a simple statement may bind: under an assignment's targets or a walrus's, or
    declared global/nonlocal (FunctionValues binds those too)."""
    found: set[str] = set()
    for node in content_nodes(stmt):
        kind = type(node)
        if kind is cst.Assign:
            targets = [t.target for t in node.targets]  # type: ignore[attr-defined]
        elif kind is cst.AnnAssign or kind is cst.AugAssign or kind is cst.NamedExpr:
            targets = [node.target]  # type: ignore[attr-defined]
        elif kind is cst.Global or kind is cst.Nonlocal:
            found.update(item.name.value for item in node.names)  # type: ignore[attr-defined]
            continue
        else:
            continue
        found.update(inner.value for target in targets for inner in content_nodes(target)  # type: ignore[attr-defined]
                     if type(inner) is cst.Name)
    return found


def _backward_slice(outer: FunctionInfo, returns: list[cst.Return]) -> tuple[frozenset[cst.Call], frozenset[str]]:
    """The calls and the names that the values of `returns` may depend on (see _feeding_calls)."""
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
    return frozenset(calls), frozenset(seen_names)


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


def _dict_items(expr: cst.BaseExpression | None) -> dict[str, cst.BaseExpression] | None:
    """A dict display's values by their string keys (`{"a": x, "b": y}`), for `f(**helper(x))`."""
    if not isinstance(expr, cst.Dict):
        return None
    found: dict[str, cst.BaseExpression] = {}
    for element in expr.elements:
        if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString):
            return None
        key = element.key.evaluated_value
        if not isinstance(key, str):
            return None
        found[key] = element.value
    return found


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
