"""A parsed file: its text, its libcst tree, and positions resolved only when asked for.

libcst computes positions by generating the code of the whole module; on a big file that costs
more than parsing it. Findings sit in functions, so positions are computed for the function
being checked alone (`scope`, set by the engine while its rules visit that function) and moved
to where the function starts in the file. Each line used is compared with the file's own line:
the same with the function's indentation added (moved right by it), or the same as it is (a line
of a multi-line string, a continuation line dedented below its block: libcst writes those with no
indentation of the block, so they are not moved); where neither holds, the whole module's
positions are computed instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable
from pathlib import Path

import libcst as cst

from breaklint.finding import Span
from breaklint.index.def_lines import line_texts
from breaklint.index.region_text import RegionText


# A node's position: ((start line, start column), (end line, end column)), lines from 1 and
# columns from 0, as libcst's PositionProvider's CodeRange holds them.
Position = tuple[tuple[int, int], tuple[int, int]]


def _positions_and_code(module: cst.Module) -> tuple[dict[int, Position], str]:
    """PositionProvider's positions of every node of `module` (by the node's id: the tree holds
    the nodes as long as the positions are kept), and its code, from one code generation
    (MetadataWrapper's positions and `module.code` would generate it twice)."""
    state = _position_state()(module.default_indent, module.default_newline)
    module._codegen(state)
    return state.positions, "".join(state.tokens)


_STATE: list[type] = []  # the state class, made on first use: libcst is imported then (deferred.py)


def _position_state() -> type:
    """libcst's PositionProvidingCodegenState (private API) made cheaper, with the same answers
    (tests/test_positions.py compares them on every node of the examples and testdata): positions
    are tuples, not CodePosition and CodeRange dataclasses; a token without a line end moves the
    column without a regular expression; the syntactic position is recorded by a small object,
    not a generator-based context manager. It was half of the cost of a function's positions,
    which a `--scope all` run computes for every function with a finding."""
    if _STATE:
        return _STATE[0]
    import re

    from libcst._nodes.internal import CodegenState

    newline = re.compile(r"\r\n?|\n")  # libcst's NEWLINE_RE

    class Syntactic:
        __slots__ = ("state", "node", "start_node", "end_node", "start")

        def __init__(self, state: State, node: cst.CSTNode, start_node: cst.CSTNode | None,
                     end_node: cst.CSTNode | None) -> None:
            self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node
            self.start = (state.line, state.column)

        def __enter__(self) -> None:
            return None

        def __exit__(self, kind: type | None, *exc: object) -> bool:
            if kind is not None:  # a RecursionError on the way out (deep code): it goes on, as it is
                return False
            state = self.state
            positions = state.positions
            start = positions[id(self.start_node)][0] if self.start_node is not None else self.start
            end = positions[id(self.end_node)][1] if self.end_node is not None else (state.line, state.column)
            positions[id(self.node)] = (start, end)
            return False

    class State(CodegenState):  # type: ignore[misc, valid-type]
        __slots__ = ("positions", "line", "column", "_stack")

        def __init__(self, default_indent: str, default_newline: str) -> None:
            super().__init__(default_indent=default_indent, default_newline=default_newline)
            self.positions: dict[int, Position] = {}
            self.line = 1
            self.column = 0
            self._stack: list[tuple[int, int]] = []

        def add_indent_tokens(self) -> None:
            for token in self.indent_tokens:
                self.add_token(token)

        def add_token(self, value: str) -> None:
            self.tokens.append(value)
            if "\n" in value or "\r" in value:
                segments = newline.split(value)
                self.line += len(segments) - 1
                self.column = len(segments[-1])
            else:
                self.column += len(value)

        def before_codegen(self, node: cst.CSTNode) -> None:
            self._stack.append((self.line, self.column))

        def after_codegen(self, node: cst.CSTNode) -> None:
            start = self._stack.pop()
            key = id(node)
            if key not in self.positions:  # a syntactic position already recorded stays
                self.positions[key] = (start, (self.line, self.column))

        def record_syntactic_position(self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None,
                                      end_node: cst.CSTNode | None = None) -> Syntactic:
            return Syntactic(self, node, start_node, end_node)

    _STATE.append(State)
    return State


@dataclass
class _Chunk:
    """Positions of one function's nodes, as generated alone; `shift` lines to the file's."""

    positions: dict[int, Position]  # by the node's id (see _positions_and_code)
    lines: list[str]  # the function's code, generated alone
    shift: int
    indent: str  # the function's indentation in the file


@dataclass
class ParsedFile:
    path: Path  # absolute
    display: str  # what reporters print (relative to the working directory when possible)
    module_name: str  # dotted, e.g. "pkg.layers"
    is_package: bool  # an `__init__.py`
    text: str
    tree: cst.Module
    _positions: dict[int, Position] | None = field(default=None, repr=False)  # by the node's id
    # Where each def starts (its first decorator's `@`, else `def`): the pre-pass knows.
    starts: dict[cst.FunctionDef, int] = field(default_factory=dict, repr=False)
    scope: cst.FunctionDef | None = field(default=None, repr=False)  # the function being checked
    _chunks: dict[cst.FunctionDef, _Chunk | None] = field(default_factory=dict, repr=False)
    _lines: list[str] | None = field(default=None, repr=False)
    # When `tree` holds only the code the rules visit (region_text.py): the whole file, for
    # readers of the rest (module-level settings, call sites); see `content`.
    whole: WholeFile | None = field(default=None, repr=False)
    # When `tree` is only the code the rules visit: what libcst parsed, and where its lines are in the file.
    region: RegionText | None = field(default=None, repr=False)

    @property
    def partial(self) -> bool:
        """Whether `tree` is only the code the rules visit (region_text.py)."""
        return self.region is not None

    @property
    def tree_chars(self) -> int:
        """The characters libcst parsed for `tree`."""
        return len(self.region.text) if self.region is not None else len(self.text)

    @property
    def content(self) -> ParsedFile | WholeFile:
        """The file's text and its whole tree, for a reader that never matches their nodes
        with the index's: itself, unless its tree is only its region code (view.ShallowFile.
        content reads another file's without a deep read)."""
        return self.whole or self

    def span(self, node: cst.CSTNode, within: cst.FunctionDef | None = None) -> Span:
        """Positions cost a metadata pass, so it runs once, and only for what needs one.
        `within`: the function `node` was seen in, when that is no longer being checked."""
        scope = within or self.scope
        if self._positions is None and scope is not None:
            found = self._span_in_scope(scope, node)
            if found is not None:
                return found
        if self._positions is None:
            self._positions = _positions_and_code(self.tree)[0]
        (start_line, start_col), (end_line, end_col) = self._positions[id(node)]
        line = self.region.file_line if self.region is not None else _same
        return Span(line(start_line), start_col + 1, line(end_line), end_col + 1)

    def span_later(self, node: cst.CSTNode) -> Callable[[], Span]:
        """`node`'s span, when called: from the positions of the function being checked now (a
        rule that reports at the end of the file would otherwise pay the whole module's)."""
        scope = self.scope
        return lambda: self.span(node, scope)

    def line(self, node: cst.CSTNode) -> int:
        return self.span(node).start_line

    def _span_in_scope(self, function: cst.FunctionDef, node: cst.CSTNode) -> Span | None:
        if function not in self._chunks:
            self._chunks[function] = self._chunk(function)
        chunk = self._chunks[function]
        position = chunk.positions.get(id(node)) if chunk is not None else None
        if position is None:
            return None
        (start_line, start_col), (end_line, end_col) = position
        start_shift, end_shift = self._columns(chunk, start_line), self._columns(chunk, end_line)  # type: ignore[arg-type]
        if start_shift is None or end_shift is None:
            return None
        shift = chunk.shift  # type: ignore[union-attr]
        return Span(start_line + shift, start_col + 1 + start_shift, end_line + shift, end_col + 1 + end_shift)

    def _chunk(self, function: cst.FunctionDef) -> _Chunk | None:
        start = self.starts.get(function)
        if start is None:
            return None
        alone = cst.Module(body=[function], default_indent=self.tree.default_indent,
                           default_newline=self.tree.default_newline)
        positions, code = _positions_and_code(alone)
        anchor = function.decorators[0] if function.decorators else function.name
        lines = self._file_lines()
        if not 0 < start <= len(lines):
            return None
        first = lines[start - 1]
        indent = first[: len(first) - len(first.lstrip(" \t\f"))]
        return _Chunk(positions, line_texts(code), start - positions[id(anchor)][0][0], indent)

    def _columns(self, chunk: _Chunk, line: int) -> int | None:
        """How many columns line `line` of the function alone is to the right in the file: the
        function's indentation when the file's line is it indented, 0 when the file's line is the
        same text (libcst writes a continuation line dedented below its block, and the lines of
        a multi-line string, as they are, with no indentation of the block), None when neither."""
        lines = self._file_lines()
        at = line + chunk.shift
        if not (0 < line <= len(chunk.lines) and 0 < at <= len(lines)):
            return None
        alone = chunk.lines[line - 1].rstrip("\r")
        there = lines[at - 1].rstrip("\r")
        if not alone or there == chunk.indent + alone:
            return len(chunk.indent)
        return 0 if there == alone else None

    def code_place(self, line: int, column: int) -> tuple[int, int]:
        """A place as code objects count it (`co_positions`): the line, and the UTF-8 bytes
        before the 1-based character `column` in it."""
        lines = self._file_lines()
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return line, len(text[: column - 1].encode("utf-8", "surrogatepass"))

    def _file_lines(self) -> list[str]:
        if self._lines is None:
            self._lines = line_texts(self.text)  # libcst's lines: a lone CR ends one too
        return self._lines


def _same(line: int) -> int:
    return line


class WholeFile:
    """A checked file's text, and its whole tree parsed when first read: libcst parsed only the
    code the rules visit, and a reader of the rest (a module-level `config.x = True`, the calls
    of a compiled callable) asks for it. The text costs nothing; `parsed` is told of each parse."""

    def __init__(self, file: ParsedFile, parse: Callable[[str], cst.Module], parsed: Callable[[str], None]) -> None:
        self._file = file
        self._parse = parse
        self._parsed = parsed
        self._whole: ParsedFile | None = None

    @property
    def text(self) -> str:
        return self._file.text

    @property
    def content(self) -> WholeFile:
        return self

    def _parsed_file(self) -> ParsedFile:
        if self._whole is None:
            file = self._file
            self._parsed(file.text)
            self._whole = ParsedFile(file.path, file.display, file.module_name, file.is_package, file.text,
                                     self._parse(file.text))
        return self._whole

    @property
    def tree(self) -> cst.Module:
        return self._parsed_file().tree

    def span(self, node: cst.CSTNode) -> Span:
        return self._parsed_file().span(node)

    def line(self, node: cst.CSTNode) -> int:
        return self.span(node).start_line
