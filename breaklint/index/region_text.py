"""The text libcst parses for a file the rules visit: its region code, everything else blanked.

The rules see only the functions they check (compiled regions; every function under `--scope
all`). What else the analysis knows of the file it reads from the index, built by `ast` from
the whole text. So libcst needs only those functions: the other statements are replaced by
one `pass` for each run of them, their other lines left out; kept lines keep their columns, and
`RegionText.file_line` gives each tree line's line in the file. A model file's config tables, imports and factory
functions, or a 7 MiB literal beside a compiled function, never reach libcst.

What stays, so that the tree still matches the index (view.bind_tree numbers defs and classes
in source order): every def and every class header, and every compound statement that holds one.
A non-region function becomes `def name():` over its body's `pass`: no decorators, no
parameters (such headers were a third of what libcst parsed of timm). Nothing reads it from the
tree: its index entry is a stand-in whose name and decorators are the summary's, and a reader
of more (a caller's arguments, a fake kernel's body) gets the def parsed from its own lines, as
another file's defs are read (view.read_alone, unbind_bodiless). A class body's own statements
go too (a docstring, `name = value`, `name: T`): what a class binds is the index's
(`ClassSummary.body`, ShallowClassInfo.body_binding).
"""

from __future__ import annotations

import ast
import bisect
from dataclasses import dataclass
from typing import Sequence

from breaklint.index.def_lines import split_lines
from breaklint.infra.quiet_ast import parse_module

_BLOCKS = ("body", "orelse", "finalbody")
# What may hold a def (a simple statement never does: a lambda is not one).
_COMPOUND = frozenset({ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
                       *filter(None, map(vars(ast).get, ("TryStar", "Match")))})  # (3.11, 3.10)
# Kinds whose blocks are only `body` (never empty), or `body` and `orelse` (_blocks's fast paths).
_BODY_ONLY = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.AsyncWith})
_BODY_ELSE = frozenset({ast.If, ast.For, ast.AsyncFor, ast.While})


@dataclass(frozen=True)
class RegionText:
    """What libcst parses, and where its lines are in the file: (line in `text`, line in the
    file) at each point where lines were left out, in order (see `file_line`)."""

    text: str
    anchors: tuple[tuple[int, int], ...]
    # First lines (the first decorator's, else `def`) of the functions whose code was blanked:
    # their nodes are to be read from the file's own lines (engine: view.read_alone).
    bodiless: frozenset[int] = frozenset()

    def file_line(self, line: int) -> int:
        at = bisect.bisect_right(self.anchors, (line, 1 << 62)) - 1
        if at < 0:
            return line
        tree_line, file_line = self.anchors[at]
        return file_line + line - tree_line


# A file's statements as the blanking needs them, made by the pre-pass from its `ast` tree (so
# that the check does not parse the file with `ast` again): a block is a tuple of items
# (first line, last line, flags, inner blocks, head). Consecutive statements that stand alone on their
# lines and hold no def are one item: they are blanked together or not at all (what is kept is a
# whole def, never part of a run). `head`, for a def whose body starts a line of its own: (that
# line, `def name` or `async def name`), what the def becomes outside the regions; else None.
Block = tuple  # type: ignore[type-arg]
FUNCTION, CLASS, DEFINES, ALONE = 1, 2, 4, 8  # DEFINES: a compound statement with a def or class in it
_DEFINE_FLAGS = {ast.FunctionDef: FUNCTION, ast.AsyncFunctionDef: FUNCTION, ast.ClassDef: CLASS}


def outline(tree: ast.Module, lines: Sequence[str]) -> Block:
    """The outline of a parsed module; `lines` its text's lines (def_lines.split_lines)."""
    return _outline(tree.body, lines)


def _outline(statements: list[ast.stmt], lines: Sequence[str]) -> Block:
    items: list[tuple[int, int, int, tuple[Block, ...], tuple[int, str] | None]] = []
    for statement in statements:
        kind = type(statement)  # (ast's classes are not subclassed: `type` is exact)
        last = statement.end_lineno or statement.lineno
        flags = _DEFINE_FLAGS.get(kind)
        if flags is not None:
            first = _first_line(statement)
        else:
            first = statement.lineno
            if kind in _COMPOUND and _defines(statement):
                flags = DEFINES
        if flags is not None:
            head = _head(statement, lines) if flags == FUNCTION else None  # type: ignore[arg-type]
            items.append((first, last, flags, tuple(_outline(inner, lines) for inner in _blocks(statement)), head))
        elif _starts_its_line(statement, lines) and _ends_its_line(statement, lines):
            if items and items[-1][2] == ALONE:
                items[-1] = (items[-1][0], last, ALONE, (), None)
            else:
                items.append((first, last, ALONE, (), None))
        else:
            items.append((first, last, 0, (), None))
    return tuple(items)


def _head(function: ast.FunctionDef | ast.AsyncFunctionDef, lines: Sequence[str]) -> tuple[int, str] | None:
    """Where a def's body starts and what its header becomes when its code goes (see Block);
    None where the body shares a line with the header (`def f(): return 1`)."""
    body = function.body[0]
    if type(body) in _DEFINE_FLAGS:
        start = _first_line(body)  # a def or class starts its line (no statement precedes it there)
    elif _starts_its_line(body, lines) and body.lineno > function.lineno:
        start = body.lineno
    else:
        return None
    return start, ("async def " if type(function) is ast.AsyncFunctionDef else "def ") + function.name


def region_text(text: str, kept: Sequence[tuple[int, int]], blocks: Block | None = None) -> RegionText | None:
    """`text` with what lies outside the `kept` line ranges (1-based, inclusive: each region
    function from its first decorator to its last line) blanked: each run of statements that go
    becomes one `pass` line and the run's other lines are left out (a million-line table is one
    line to libcst). `blocks`: the text's outline, when the pre-pass made it (else the text is
    parsed here). None when nothing would be blanked or the text does not parse (the caller
    parses it whole)."""
    lines = split_lines(text)
    if blocks is None:
        try:
            blocks = outline(parse_module(text), lines)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    blanker = _Blanker(lines, sorted(kept))
    blanker.block(blocks)
    if not blanker.dropped and not blanker.passes:
        return None
    out: list[str] = []
    anchors: list[tuple[int, int]] = []
    skipping = False
    for number, line in enumerate(lines, start=1):
        if number in blanker.dropped:
            skipping = True
            continue
        if skipping:
            anchors.append((len(out) + 1, number))
            skipping = False
        out.append(blanker.passes.get(number, line))
    return RegionText("".join(out), tuple(anchors), frozenset(blanker.bodiless))


class _Blanker:
    def __init__(self, lines: list[str], kept: list[tuple[int, int]]) -> None:
        self.lines = lines
        self.kept = kept
        self.passes: dict[int, str] = {}  # line -> `pass` at the indentation of what it replaces
        self.dropped: set[int] = set()
        self.bodiless: set[int] = set()  # first lines of the defs whose code went (and holds no region)

    def block(self, items: Block) -> None:
        run: list[int] = []  # the first and last lines of the statements that go, blanked as one
        for first, last, flags, inner, head in items:
            if any(start <= first and last <= end for start, end in self.kept):
                self._blank(run)  # region code: as written
                continue
            if flags & (FUNCTION | CLASS | DEFINES):  # (what holds a kept def defines one)
                self._blank(run)
                if flags & FUNCTION and not self._holds_kept(first, last):
                    self.bodiless.add(first)
                    if head is not None:
                        self._stub(first, *head)
                for block in inner:
                    self.block(block)  # its header stays; what it holds likewise
            elif flags & ALONE:
                run[:] = [run[0] if run else first, last]
            else:
                self._blank(run)
        self._blank(run)

    def _holds_kept(self, first: int, last: int) -> bool:
        return any(first <= start and end <= last for start, end in self.kept)

    def _stub(self, first: int, body: int, header: str) -> None:
        """The def's header (its decorators and signature, lines `first` to `body` - 1) as
        `header():` on its first line, the other lines out."""
        line = self.lines[first - 1]
        indent = line[:len(line) - len(line.lstrip(" \t"))]
        self.passes[first] = f"{indent}{header}():{_ending(line)}"
        self.dropped.update(range(first + 1, body))

    def _blank(self, run: list[int]) -> None:
        """`pass` at the first statement's indentation on its first line; the run's other lines out."""
        if not run:
            return
        first, last = run
        head = self.lines[first - 1]
        indent = head[:len(head) - len(head.lstrip(" \t"))]
        self.passes[first] = indent + "pass" + _ending(head)
        self.dropped.update(range(first + 1, last + 1))
        run.clear()


def _starts_its_line(statement: ast.stmt, lines: Sequence[str]) -> bool:
    """Nothing but indentation before it (not the body of `if x: y` on one line, not the
    second of `a; b`: those go with the statement they share a line with, or stay). The column
    is in UTF-8 bytes, the slice in characters: exact when only indentation (ASCII) comes
    before, and longer than what comes before otherwise, so it holds its code too."""
    return not statement.col_offset or not lines[statement.lineno - 1][:statement.col_offset].strip()


def _ends_its_line(statement: ast.stmt, lines: Sequence[str]) -> bool:
    if statement.end_col_offset is None:
        return True
    line = lines[(statement.end_lineno or statement.lineno) - 1]
    if line.isascii():
        rest = line[statement.end_col_offset:].strip()
        return not rest or rest[0] == "#"
    # ast's columns are UTF-8 byte offsets: `x = "é"  # c` ends at byte 9, character 7
    tail = line.encode("utf-8", "surrogatepass")[statement.end_col_offset:].strip()
    return not tail or tail[:1] == b"#"


def _first_line(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", ())
    return min([statement.lineno, *(d.lineno for d in decorators)]) if decorators else statement.lineno


def _defines(statement: ast.stmt) -> bool:
    """Whether a def or class stands anywhere in its blocks (only statements are looked into)."""
    for block in _blocks(statement):
        for inner in block:
            kind = type(inner)
            if kind in _DEFINE_FLAGS or (kind in _COMPOUND and _defines(inner)):
                return True
    return False


def _blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    """Its non-empty blocks: body, orelse, finalbody, then each handler's and case's body."""
    kind = type(statement)
    if kind in _BODY_ONLY:
        return [statement.body]  # type: ignore[attr-defined]
    if kind in _BODY_ELSE:
        return [statement.body, statement.orelse] if statement.orelse else [statement.body]  # type: ignore[attr-defined]
    found = [inner for name in _BLOCKS if (inner := getattr(statement, name, None))]
    found += [handler.body for handler in getattr(statement, "handlers", ())]
    found += [case.body for case in getattr(statement, "cases", ())]
    return found


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")):] or "\n"
