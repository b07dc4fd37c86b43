"""A parsed file: its text, its libcst tree, and positions resolved only when asked for.

libcst computes positions by generating the code of the whole module; on a big file that costs
more than parsing it. Findings sit in functions, so positions are computed for the function
being checked alone (`scope`, set by the engine while its rules visit that function) and moved
to where the function starts in the file. Each line used is compared with the file's own line
(indentation added, or as it stands: libcst writes a line inside brackets or a string verbatim);
where it is neither, the whole module's positions are computed instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable
from pathlib import Path

import libcst as cst

if TYPE_CHECKING:
    from libcst.metadata import CodeRange

from breaklint.finding import Span
from breaklint.index.region_text import RegionText


def _positions_and_code(module: cst.Module) -> tuple[dict[cst.CSTNode, CodeRange], str]:
    """PositionProvider's positions of every node of `module`, and its code, from one code
    generation (MetadataWrapper's positions and `module.code` would generate it twice: a third of
    a `--scope all` run went there). The state and provider are libcst's own."""
    from libcst.metadata import PositionProvider  # on first use (deferred.py)
    from libcst.metadata.position_provider import PositionProvidingCodegenState

    provider = PositionProvider()
    state = PositionProvidingCodegenState(default_indent=module.default_indent,
                                          default_newline=module.default_newline, provider=provider)
    module._codegen(state)
    return provider._computed, "".join(state.tokens)  # type: ignore[return-value]


@dataclass
class _Chunk:
    """Positions of one function's nodes, as generated alone; `shift` lines to the file's."""

    positions: dict[cst.CSTNode, CodeRange]
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
    _positions: dict[cst.CSTNode, CodeRange] | None = field(default=None, repr=False)
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
            from libcst.metadata import MetadataWrapper, PositionProvider  # on first use (deferred.py)

            wrapper = MetadataWrapper(self.tree, unsafe_skip_copy=True)
            self._positions = dict(wrapper.resolve(PositionProvider))
        code_range = self._positions[node]
        line = self.region.file_line if self.region is not None else _same
        return Span(
            line(code_range.start.line),
            code_range.start.column + 1,
            line(code_range.end.line),
            code_range.end.column + 1,
        )

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
        if chunk is None or node not in chunk.positions:
            return None
        code_range = chunk.positions[node]
        start, end = code_range.start, code_range.end
        start_column, end_column = self._column(chunk, start.line, start.column), self._column(chunk, end.line, end.column)
        if start_column is None or end_column is None:
            return None
        return Span(start.line + chunk.shift, start_column + 1, end.line + chunk.shift, end_column + 1)

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
        return _Chunk(positions, code.split("\n"), start - positions[anchor].start.line, indent)

    def _column(self, chunk: _Chunk, line: int, column: int) -> int | None:
        """Column `column` of line `line` of the function alone, in the file: right by the
        function's indentation where the generator indented the line (a statement's line; but
        column 0 of a line indented within the function is before any indentation), as it is
        where the line is the file's as written (inside brackets or a string, which libcst
        reproduces verbatim), None where it is neither."""
        lines = self._file_lines()
        at = line + chunk.shift
        if not (0 < line <= len(chunk.lines) and 0 < at <= len(lines)):
            return None
        alone, real = chunk.lines[line - 1].rstrip("\r"), lines[at - 1].rstrip("\r")
        if not alone or real == chunk.indent + alone:
            return 0 if column == 0 and (not alone or alone[0].isspace()) else column + len(chunk.indent)
        return column if real == alone else None

    def _file_lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.text.split("\n")
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
