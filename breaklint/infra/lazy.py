"""libcst nodes made only as far as they are read.

The pre-pass keeps expressions as source text; the resolvers mostly read the spine of one
(`nn.Linear(...)`: that it is a call, and of what), rarely its arguments. So `parse_fragment`
builds `a.b.c` directly, and for calls, attributes and subscripts returns `LazyNode`s whose
spine comes from the stdlib `ast` (ten times cheaper) while anything else is read from the
real libcst tree, parsed on first need. Every answer is the one the parsed tree gives.
"""

from __future__ import annotations

import ast
import warnings
from typing import Callable

import libcst as cst

_OWN = frozenset({"_kind", "_known", "_real", "_resolved", "_on_read"})


class LazyNode:
    """Stands in for a libcst node: what is known without parsing (`known`) is answered from
    it, anything else is read from the real node (`real`, made once). It passes `isinstance`
    checks for the node's class. `on_read` hears of every read that needs the real node."""

    def __init__(self, kind: type, known: dict[str, Callable[[], object]], real: Callable[[], cst.CSTNode],
                 on_read: Callable[[], None] | None = None) -> None:
        self._kind = kind
        self._known = known
        self._real = real
        self._resolved: cst.CSTNode | None = None
        self._on_read = on_read

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # isinstance(node, cst.Call) holds
        return self._kind

    def resolve(self) -> cst.CSTNode:
        if self._on_read is not None:
            self._on_read()
        if self._resolved is None:
            self._resolved = self._real()
        return self._resolved

    def __getattr__(self, name: str) -> object:
        if name in _OWN:
            raise AttributeError(name)
        maker = self._known.get(name)
        if maker is None:
            return getattr(self.resolve(), name)
        value = maker()
        setattr(self, name, value)  # the next read finds it without __getattr__
        return value

    def __repr__(self) -> str:
        return f"<LazyNode {self._kind.__name__}>"


def real_node(node: object) -> object:
    """The libcst node behind a LazyNode (anything else is returned as is)."""
    return node.resolve() if type(node) is LazyNode else node


def parse_fragment(text: str) -> cst.BaseExpression:
    """The libcst expression for `text` (an expression as written, without its parentheses)."""
    dotted = _dotted_node(text)
    if dotted is not None:
        return dotted
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(f"({text})", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _parse(text)
    parsed: list[cst.BaseExpression] = []

    def root() -> cst.BaseExpression:
        if not parsed:
            parsed.append(_parse(text))
        return parsed[0]

    return _spine(tree, root)  # type: ignore[return-value]


def _parse(text: str) -> cst.BaseExpression:
    return cst.parse_expression(f"({text})")


def _dotted_node(text: str) -> cst.BaseExpression | None:
    parts = text.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    expr: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        expr = cst.Attribute(value=expr, attr=cst.Name(part))
    return expr


def _spine(node: ast.expr, real: Callable[[], object]) -> object:
    """`node` as libcst has it: built for names, lazy for calls, attributes and subscripts (their
    `func` / `value` / `attr` built the same way), else read from the parsed tree."""
    if isinstance(node, ast.Name):
        return cst.Name(node.id)
    if isinstance(node, ast.Attribute):
        value = node.value
        return LazyNode(cst.Attribute, {
            "value": lambda: _spine(value, lambda: getattr(real(), "value")),
            "attr": lambda: cst.Name(node.attr),
        }, real)  # type: ignore[arg-type]
    if isinstance(node, ast.Call):
        func = node.func
        return LazyNode(cst.Call, {"func": lambda: _spine(func, lambda: getattr(real(), "func"))}, real)  # type: ignore[arg-type]
    if isinstance(node, ast.Subscript):
        value = node.value
        return LazyNode(cst.Subscript, {"value": lambda: _spine(value, lambda: getattr(real(), "value"))},
                        real)  # type: ignore[arg-type]
    return real()
