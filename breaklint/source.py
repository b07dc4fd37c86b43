"""A parsed file: its text, its libcst tree, and positions resolved only when asked for."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from .finding import Span


@dataclass
class ParsedFile:
    path: Path  # absolute
    display: str  # what reporters print (relative to the working directory when possible)
    module_name: str  # dotted, e.g. "pkg.layers"
    is_package: bool  # an `__init__.py`
    text: str
    tree: cst.Module
    _positions: dict[cst.CSTNode, CodeRange] | None = field(default=None, repr=False)

    def span(self, node: cst.CSTNode) -> Span:
        """Positions cost a full metadata pass, so it runs once and only for files that need one."""
        if self._positions is None:
            wrapper = MetadataWrapper(self.tree, unsafe_skip_copy=True)
            self._positions = dict(wrapper.resolve(PositionProvider))
        code_range = self._positions[node]
        return Span(
            code_range.start.line,
            code_range.start.column + 1,
            code_range.end.line,
            code_range.end.column + 1,
        )

    def line(self, node: cst.CSTNode) -> int:
        return self.span(node).start_line
