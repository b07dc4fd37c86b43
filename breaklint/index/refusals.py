"""What Python's compiler may refuse in a tree its parser took, as the index's walk sees it.

The compiler judges more than the grammar: where `return`, `break`, `yield`, `await`, `global`
and `nonlocal` stand, repeated keywords and parameters, late `from __future__` imports, starred
targets, nested blocks past its limit. Compiling every file to learn that cost a sixth of a check,
so builder._Walker notes these constructs as it walks (`refusable`) and scan.compiled_verdict
compiles only trees that hold one. What is here are the facts the walk reads; the rule is
conservative (what it cannot judge is left to the compiler), and benchmarks/compiler_gate.py
tries it on every text CPython's own test suite has the compiler refuse.
"""

from __future__ import annotations

import __future__
import ast
import re

# The compiler refuses more than 20 nested blocks in a code object (CO_MAXBLOCKS): a `for`,
# `while` or `with` item is one, a `try` up to three (its handler's cleanup, its `finally`). A
# def past the margin is compiled (a nesting that deep is rare).
BLOCK_MARGIN = 12
TRY_WEIGHT = 3

# Features Python knows (not `braces`; `barry_as_FLUFL` changes the grammar: compiled).
_FUTURE_FEATURES = frozenset(__future__.all_feature_names) - {"barry_as_FLUFL"}


def future_heads(tree: ast.Module) -> set[int]:
    """The `from __future__` imports where Python takes them (after the docstring, a `str`, and
    before any other statement, a number or bytes too) naming features it knows: their ids."""
    body = tree.body
    start = 1 if body and _is_constant(body[0]) and isinstance(body[0].value.value, str) else 0  # type: ignore[attr-defined]
    heads: set[int] = set()
    for statement in body[start:]:
        if type(statement) is not ast.ImportFrom or statement.module != "__future__":
            break
        if statement.level == 0 and all(alias.name in _FUTURE_FEATURES for alias in statement.names):
            heads.add(id(statement))
    return heads


def leading_declarations(body: list[ast.stmt]) -> list[int]:
    """The ids of the `global` and `nonlocal` statements a def's body opens with (after constant
    expressions, its docstring): no use of a name in that scope can come before them."""
    leading = []
    for statement in body:
        kind = type(statement)
        if kind is ast.Global or kind is ast.Nonlocal:
            leading.append(id(statement))
        elif not _is_constant(statement):
            break
    return leading


def may_be_named_in(source: bytes, names: list[str]) -> bool:
    """Whether any of `names` may occur in `source` (the def's text before a `global` or
    `nonlocal` that does not open it): as a word, or not surely not (non-ASCII text, whose
    identifiers Python normalizes; a dunder, which `super()` uses unwritten)."""
    if not source.isascii() or any(not name.isascii() or name.startswith("__") for name in names):
        return True
    return re.search(rb"(?<![\w])(?:%s)(?![\w])" % b"|".join(name.encode() for name in names), source) is not None


def repeats_a_keyword(keywords: list[ast.keyword]) -> bool:
    names = [keyword.arg for keyword in keywords if keyword.arg is not None]
    return len(set(names)) != len(names)


def parameter_names(args: ast.arguments) -> list[str]:
    return [a.arg for a in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg) if a is not None]


def bound_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names the def binds in its own scope, by the plainest bindings only (parameters,
    assignment and loop targets, `as` names, imports, nested defs and classes): a binding missed
    here makes a `nonlocal` look unbound, and the compiler is asked; none is ever invented."""
    names = set(parameter_names(node.args))
    stack: list[ast.stmt] = list(node.body)
    while stack:
        statement = stack.pop()
        kind = type(statement)
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            names.add(statement.name)  # type: ignore[attr-defined]
            continue  # its body is a scope of its own
        if kind is ast.Assign:
            for target in statement.targets:  # type: ignore[attr-defined]
                _target_names(target, names)
        elif kind is ast.AugAssign or (kind is ast.AnnAssign and statement.value is not None):  # type: ignore[attr-defined]
            _target_names(statement.target, names)  # type: ignore[attr-defined]
        elif kind is ast.For or kind is ast.AsyncFor:
            _target_names(statement.target, names)  # type: ignore[attr-defined]
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in statement.items:  # type: ignore[attr-defined]
                if item.optional_vars is not None:
                    _target_names(item.optional_vars, names)
        elif kind is ast.Import or kind is ast.ImportFrom:
            names.update(alias.asname or alias.name.split(".")[0] for alias in statement.names  # type: ignore[attr-defined]
                         if alias.name != "*")
        elif kind is ast.Try:
            names.update(handler.name for handler in statement.handlers if handler.name)  # type: ignore[attr-defined]
            for handler in statement.handlers:  # type: ignore[attr-defined]
                stack += handler.body
        for field in ("body", "orelse", "finalbody"):
            stack += getattr(statement, field, ())
    return names


def comprehension_targets(outermost: ast.expr) -> set[str]:
    """Every name a comprehension and those inside it iterate with: a `:=` in it may bind none
    of them ("cannot rebind comprehension iteration variable"), whichever level it stands at."""
    names: set[str] = set()
    for node in ast.walk(outermost):
        if type(node) is ast.comprehension:
            _target_names(node.target, names)  # type: ignore[attr-defined]
    return names


def _target_names(target: ast.expr, into: set[str]) -> None:
    kind = type(target)
    if kind is ast.Name:
        into.add(target.id)  # type: ignore[attr-defined]
    elif kind is ast.Tuple or kind is ast.List:
        for item in target.elts:  # type: ignore[attr-defined]
            _target_names(item, into)
    elif kind is ast.Starred:
        _target_names(target.value, into)  # type: ignore[attr-defined]


def _is_constant(statement: ast.stmt) -> bool:
    return type(statement) is ast.Expr and type(statement.value) is ast.Constant  # type: ignore[attr-defined]


def match_may_be_refused(node: ast.stmt) -> bool:
    """Whether the compiler may refuse a `match` statement's patterns: a case that matches
    anything (a capture or `_`, unguarded) before another, a name bound twice in one pattern,
    alternatives binding different names or one that matches anything before another, two stars
    in a sequence, repeated or unproven mapping keys and class attributes, a value pattern
    other than a literal or a dotted name."""
    cases = node.cases  # type: ignore[attr-defined]
    for at, case in enumerate(cases):
        if at < len(cases) - 1 and case.guard is None and _irrefutable(case.pattern):
            return True
        if _bound(case.pattern) is None:
            return True
    return False


def _irrefutable(pattern: ast.AST) -> bool:
    kind = type(pattern)
    if kind is ast.MatchAs:
        return pattern.pattern is None or _irrefutable(pattern.pattern)  # type: ignore[attr-defined]
    return kind is ast.MatchOr and any(map(_irrefutable, pattern.patterns))  # type: ignore[attr-defined]


def _bound(pattern: ast.AST) -> list[str] | None:
    """The names `pattern` binds, or None where the compiler may refuse it."""
    kind = type(pattern)
    if kind is ast.MatchValue:
        return [] if _plain_value(pattern.value) else None  # type: ignore[attr-defined]
    if kind is ast.MatchSingleton:
        return []
    if kind is ast.MatchStar:
        return [pattern.name] if pattern.name else []  # type: ignore[attr-defined]
    if kind is ast.MatchAs:
        inner = _bound(pattern.pattern) if pattern.pattern is not None else []  # type: ignore[attr-defined]
        return None if inner is None else _once(inner + ([pattern.name] if pattern.name else []))  # type: ignore[attr-defined]
    if kind is ast.MatchSequence:
        if sum(type(item) is ast.MatchStar for item in pattern.patterns) > 1:  # type: ignore[attr-defined]
            return None
        return _all_bound(pattern.patterns)  # type: ignore[attr-defined]
    if kind is ast.MatchMapping:
        keys = pattern.keys  # type: ignore[attr-defined]
        if not all(type(key) is ast.Constant or _dotted_value(key) for key in keys):
            return None
        constants = [key.value for key in keys if type(key) is ast.Constant]
        try:
            if len(set(constants)) != len(constants):  # the compiler's own test: `1`, `1.0`, `True` are one key
                return None
        except TypeError:  # unhashable
            return None
        found = _all_bound(pattern.patterns)  # type: ignore[attr-defined]
        rest = [pattern.rest] if pattern.rest else []  # type: ignore[attr-defined]
        return None if found is None else _once(found + rest)
    if kind is ast.MatchClass:
        attributes = pattern.kwd_attrs  # type: ignore[attr-defined]
        if len(set(attributes)) != len(attributes):
            return None
        return _all_bound([*pattern.patterns, *pattern.kwd_patterns])  # type: ignore[attr-defined]
    if kind is ast.MatchOr:
        alternatives = pattern.patterns  # type: ignore[attr-defined]
        if any(map(_irrefutable, alternatives[:-1])):
            return None
        found = [_bound(alternative) for alternative in alternatives]
        if any(names is None for names in found) or len({frozenset(names) for names in found}) > 1:  # type: ignore[arg-type]
            return None
        return found[0]
    return None


def _all_bound(patterns: list[ast.AST]) -> list[str] | None:
    names: list[str] = []
    for pattern in patterns:
        found = _bound(pattern)
        if found is None:
            return None
        names += found
    return _once(names)


def _once(names: list[str]) -> list[str] | None:
    """The names, unless one is bound twice ("multiple assignments to name in pattern")."""
    return names if len(set(names)) == len(names) else None


def _plain_value(value: ast.expr) -> bool:
    """A value pattern the compiler takes as written: a literal (not a complex sum) or a dotted name."""
    if type(value) is ast.UnaryOp and type(value.op) is ast.USub:
        value = value.operand
    return type(value) is ast.Constant or _dotted_value(value)


def _dotted_value(value: ast.expr) -> bool:
    if type(value) is not ast.Attribute:
        return False
    while type(value) is ast.Attribute:
        value = value.value  # type: ignore[attr-defined]
    return type(value) is ast.Name
