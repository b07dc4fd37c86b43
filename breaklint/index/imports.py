"""Qualified names without libcst's QualifiedNameProvider: an import table per module.

`import torch as t; t.compile(f)` and `from torch import compile` both resolve to
`torch.compile`; a local `def compile` resolves to `<module>.compile`.
"""

from __future__ import annotations

import ast
from typing import Mapping

import libcst as cst


def dotted(expr: cst.BaseExpression) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    kind = expr.__class__  # (a lazy.LazyNode's too; libcst's classes are ABCs: isinstance costs more)
    if kind is cst.Name:
        return expr.value  # type: ignore[attr-defined]
    if kind is not cst.Attribute:
        return None
    parts: list[str] = []
    while kind is cst.Attribute:
        parts.append(expr.attr.value)  # type: ignore[attr-defined]
        expr = expr.value  # type: ignore[attr-defined]
        kind = expr.__class__
    if kind is not cst.Name:
        return None
    parts.append(expr.value)  # type: ignore[attr-defined]
    return ".".join(reversed(parts))


def absolute_module(module: str, is_package: bool, level: int, name: str | None) -> str:
    """Resolve `from ..x import y` relative to `module` (a package's `__init__` when is_package)."""
    if level == 0:
        return name or ""
    parts = module.split(".")
    # In pkg/__init__.py the module *is* the package; elsewhere drop the module's own name.
    keep = len(parts) - level + (1 if is_package else 0)
    base = parts[: max(keep, 0)]
    if name:
        base.append(name)
    return ".".join(base)


class ImportTable:
    """Local name -> fully qualified dotted name, for one module."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.is_package = is_package
        self.aliases: dict[str, str] = {}
        self.local_defs: set[str] = set()

    def add_import(self, node: cst.Import | cst.ImportFrom) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = dotted(alias.name) or ""
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self.aliases[alias.asname.name.value] = full
                else:
                    head = full.split(".")[0]
                    self.aliases[head] = head
            return
        level = len(node.relative)
        source = dotted(node.module) if node.module is not None else None
        base = absolute_module(self.module, self.is_package, level, source)
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = dotted(alias.name) or ""
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.aliases[local] = f"{base}.{name}" if base else name

    def add_ast_import(self, node: ast.Import | ast.ImportFrom) -> None:
        """The same bindings as `add_import`, from a stdlib `ast` node (the pre-pass)."""
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is not None:
                    self.aliases[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    self.aliases[head] = head
            return
        base = absolute_module(self.module, self.is_package, node.level, node.module)
        if node.names[0].name == "*":
            return
        for alias in node.names:
            local = alias.asname if alias.asname is not None else alias.name
            self.aliases[local] = f"{base}.{alias.name}" if base else alias.name

    def resolve(self, expr: cst.BaseExpression) -> str | None:
        name = dotted(expr)
        return self.resolve_dotted(name) if name else None

    def resolve_dotted(self, name: str) -> str:
        head, _, rest = name.partition(".")
        if head in self.aliases:
            base = self.aliases[head]
        elif head in self.local_defs:
            base = f"{self.module}.{head}"
        else:
            base = head
        return f"{base}.{rest}" if rest else base


def base_key(written: str, aliases: Mapping[str, str]) -> str | None:
    """The name a base class is known by, from its text as the class statement writes it:
    the last part of the dotted name it resolves to (`AB` imported as `from .base import
    AugmentationBase as AB`, `base.AugmentationBase`, `Generic[T]`: `AugmentationBase`,
    `AugmentationBase`, `Generic`). A class's subclasses are those whose bases have its name as
    a key (ProjectIndex.subclasses checks each by resolving it); None for other expressions."""
    name = written.partition("[")[0].strip()
    if not name or not all(part.isidentifier() for part in name.split(".")):
        return None
    head, _, rest = name.partition(".")
    resolved = f"{aliases[head]}.{rest}" if head in aliases and rest else aliases.get(head, name)
    return resolved.rpartition(".")[2]
