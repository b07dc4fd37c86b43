"""The text libcst parses for a file the rules visit: its region code, everything else blanked.

The rules see only the functions they check (compiled regions; every function under `--scope
all`). What else the analysis knows of the file it reads from the index, built by `ast` from
the whole text. So libcst needs only those functions: the other statements are replaced by
`pass` on their first line, their other lines left empty, and the file keeps its lines and
columns (positions need no mapping back). A model file's config tables, imports and factory
functions, or a 7 MiB literal beside a compiled function, never reach libcst.

What stays, so that the tree still matches the index (view.bind_tree numbers defs and classes
in source order): every def and class header, and every compound statement that holds one.
A non-region function keeps its header and loses its body; its calls are then read from the
index, as another file's are (view.ShallowFunctionInfo.calls falls back when the tree's calls
are not the summary's).
"""

from __future__ import annotations

import ast
from typing import Iterable, Sequence

_DEFINES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCKS = ("body", "orelse", "finalbody")


def region_text(text: str, kept: Sequence[tuple[int, int]]) -> str | None:
    """`text` with what lies outside the `kept` line ranges (1-based, inclusive: each region
    function from its first decorator to its last line) blanked; None when nothing would be
    blanked or the text does not parse (the caller parses it whole)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = text.splitlines(keepends=True)
    blanker = _Blanker(lines, sorted(kept))
    blanker.block(tree.body)
    return "".join(lines) if blanker.changed else None


class _Blanker:
    def __init__(self, lines: list[str], kept: list[tuple[int, int]]) -> None:
        self.lines = lines
        self.kept = kept
        self.changed = False

    def block(self, statements: Iterable[ast.stmt]) -> None:
        for statement in statements:
            first, last = _first_line(statement), statement.end_lineno or statement.lineno
            if any(start <= first and last <= end for start, end in self.kept):
                continue  # region code: as written
            if isinstance(statement, _DEFINES) or self._holds_kept(first, last) or _defines(statement):
                for inner in _blocks(statement):
                    self.block(inner)  # its header stays; what it holds is sorted out the same way
            elif self._starts_its_line(statement) and self._ends_its_line(statement):
                self._blank(first, last)

    def _holds_kept(self, first: int, last: int) -> bool:
        return any(first <= start and end <= last for start, end in self.kept)

    def _starts_its_line(self, statement: ast.stmt) -> bool:
        """Nothing but indentation before it (not the body of `if x: y` on one line, not the
        second of `a; b`: those go with the statement they share a line with, or stay)."""
        return not self.lines[statement.lineno - 1][:statement.col_offset].strip()

    def _ends_its_line(self, statement: ast.stmt) -> bool:
        line = self.lines[(statement.end_lineno or statement.lineno) - 1]
        rest = line[statement.end_col_offset or 0:].strip() if statement.end_col_offset is not None else ""
        return not rest or rest.startswith("#")

    def _blank(self, first: int, last: int) -> None:
        head = self.lines[first - 1]
        indent = head[:len(head) - len(head.lstrip(" \t"))]
        self.lines[first - 1] = indent + "pass" + _ending(head)
        for number in range(first + 1, last + 1):
            self.lines[number - 1] = _ending(self.lines[number - 1])
        self.changed = True


def _first_line(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", ())
    return min([statement.lineno, *(d.lineno for d in decorators)])


def _defines(statement: ast.stmt) -> bool:
    return any(isinstance(node, _DEFINES) for node in ast.walk(statement))


def _blocks(statement: ast.stmt) -> Iterable[list[ast.stmt]]:
    for name in _BLOCKS:
        inner = getattr(statement, name, None)
        if inner:
            yield inner
    for handler in getattr(statement, "handlers", ()):
        yield handler.body
    for case in getattr(statement, "cases", ()):
        yield case.body


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")):] or "\n"
