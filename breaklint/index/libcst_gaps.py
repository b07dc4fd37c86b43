"""Valid Python that libcst cannot read: the statements it rejects are blanked, the rest is checked.

Python's own compiler is the judge of what is valid (see compiler_verdict in scan.py). libcst
rejects a few constructs it accepts, such as a parenthesised annotated target, `(x): int = 1`.
Reporting such a file as a syntax error would be wrong and would hide its real findings, so the
simple statement libcst stops at is replaced by `pass` (its other lines left empty) and the
file is parsed again. Lines and columns of everything else stay where they were; the index,
built from the stdlib `ast` of the original text, still knows what the blanked statement does.

Only simple statements are blanked, so the file's defs and classes stay the ones the index
numbered (view.bind_tree). A rejection inside a compound statement's header, or more than
MAX_GAPS of them, leaves the file a BL001 as before.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable

import libcst as cst

from breaklint.index.def_lines import split_lines
from breaklint.infra.quiet_ast import parse_module

_AT = re.compile(r"error at (\d+):\d+")
MAX_GAPS = 20  # beyond this the file is more libcst's problem than ours: BL001 as before


@dataclass(frozen=True)
class Gaps:
    """The text libcst read, its tree, and the line ranges (1-based, inclusive) blanked in it."""

    text: str
    tree: cst.Module
    lines: tuple[tuple[int, int], ...]


def parse_around_gaps(text: str, error: cst.ParserSyntaxError,
                      parse: Callable[[str], cst.Module]) -> Gaps | None:
    """libcst's tree of `text` with the statements it rejects blanked, or None when Python
    rejects the text too (a real syntax error) or the rejection is not in a simple statement."""
    try:
        statements = _statements(parse_module(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = split_lines(text)
    blanked: list[tuple[int, int]] = []
    while len(blanked) < MAX_GAPS:
        gap = next((found for line in _error_lines(error)
                    if (found := _simple_statement_at(statements, line)) is not None), None)
        if gap is None or gap in blanked:
            return None
        blanked.append(gap)
        _blank(lines, *gap)
        masked = "".join(lines)
        try:
            return Gaps(masked, parse(masked), tuple(blanked))
        except cst.ParserSyntaxError as again:
            error = again
    return None


def _error_lines(error: cst.ParserSyntaxError) -> list[int]:
    """Where the rejection may be: the native parser's message names the token (`error at
    3:5`) while `raw_line` can be the line after it; both, then the line before."""
    said = _AT.search(error.message)
    candidates = [int(said.group(1))] if said else []
    return [*candidates, error.raw_line, error.raw_line - 1]


def _statements(tree: ast.Module) -> list[ast.stmt]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.stmt)]


_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While,
             ast.With, ast.AsyncWith, ast.Try, *filter(None, map(vars(ast).get, ("TryStar", "Match"))))  # (3.11, 3.10)


def _simple_statement_at(statements: list[ast.stmt], line: int) -> tuple[int, int] | None:
    """The lines of the innermost statement over `line`, if it is a simple one and its lines
    hold no other statement's start or end (a `;`-joined neighbour is blanked with it, a
    compound statement never)."""
    covering = [s for s in statements if s.lineno <= line <= (s.end_lineno or s.lineno)]
    if not covering:
        return None
    innermost = min(covering, key=lambda s: (s.end_lineno or s.lineno) - s.lineno)
    if isinstance(innermost, _COMPOUND):
        return None
    first, last = innermost.lineno, innermost.end_lineno or innermost.lineno
    for other in statements:
        end = other.end_lineno or other.lineno
        touches = first <= other.lineno <= last or first <= end <= last
        if touches and isinstance(other, _COMPOUND) and not (other.lineno < first and end >= last):
            return None  # a block starting or ending on these lines would lose its header or body
    return first, last


def _blank(lines: list[str], first: int, last: int) -> None:
    """`pass` at the statement's indentation on its first line, its other lines left empty."""
    head = lines[first - 1]
    indent = head[:len(head) - len(head.lstrip(" \t"))]
    lines[first - 1] = indent + "pass" + _ending(head)
    for number in range(first + 1, last + 1):
        lines[number - 1] = _ending(lines[number - 1])


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")):] or "\n"
