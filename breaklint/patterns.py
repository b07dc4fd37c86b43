"""Small syntax helpers shared by rules."""

from __future__ import annotations

import libcst as cst


def method_call(node: cst.Call, names: frozenset[str] | set[str]) -> cst.BaseExpression | None:
    """The receiver of `receiver.name(...)` when `name` is one of `names`."""
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value in names:
        return func.value
    return None
