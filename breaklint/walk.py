"""`node.visit(visitor)` for a read-only CSTVisitor, without its cost.

libcst's `visit` rebuilds every node it passes (`_visit_and_replace_children` makes a new node,
validated, even when nothing changed): most of a traversal's time. Here the same `on_visit` /
`on_leave` calls reach the same nodes in the same order — the children in the order each node
type's `_visit_and_replace_children` visits them, read once from libcst's own source — and
nothing is built. Per-attribute callbacks (`visit_Call_func`) are not made; our visitors have none.
"""

from __future__ import annotations

import inspect
import re
from functools import lru_cache

import libcst as cst

from .lazy import real_node

_FIELD = re.compile(r'visit_\w+\(\s*self,\s*"(\w+)"')
_DEFAULT = cst.MaybeSentinel.DEFAULT


@lru_cache(maxsize=None)
def child_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node type that hold children, in libcst's visit order."""
    source = inspect.getsource(kind._visit_and_replace_children)  # type: ignore[attr-defined]
    return tuple(dict.fromkeys(_FIELD.findall(source)))  # ImportFrom names `names` twice (one is used)


@lru_cache(maxsize=None)
def supported() -> bool:
    """Whether libcst's sources can be read (they can, unless it ships without them)."""
    try:
        return bool(child_fields(cst.Call))
    except (OSError, TypeError):
        return False


def walk(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    if visitor.on_visit(node):
        for name in child_fields(type(node)):
            value = getattr(node, name)
            kind = type(value)
            if kind is tuple or kind is list:
                for child in value:  # sequences hold nodes only
                    walk(child, visitor)
            elif value is not None and value is not _DEFAULT:  # an optional child that is absent
                walk(value, visitor)
    visitor.on_leave(node)


def visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """walk() when libcst's sources are there, else libcst's own visit. A node made from
    pre-pass text (lazy.LazyNode) is walked as the libcst node it stands for."""
    node = real_node(node)  # type: ignore[assignment]
    if supported():
        walk(node, visitor)
    else:
        node.visit(visitor)
