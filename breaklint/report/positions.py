"""Positions at the edge: findings carry 1-based lines and 1-based code-point columns (Span,
end exclusive); each output format converts them here and nowhere else.

- LSP: 0-based lines, 0-based columns in the negotiated encoding (UTF-16 code units unless the
  client chose UTF-8 or UTF-32), so an `é` or an emoji before a finding moves its column.
- SARIF: 1-based code points, declared with `columnKind: unicodeCodePoints`.
- text and GitHub annotations: 1-based code points, as the Span holds them.
"""

from __future__ import annotations

from typing import Sequence

from breaklint.finding import Span

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"  # LSP's PositionEncodingKind values


def units(text: str, encoding: str = UTF16) -> int:
    """How many code units of `encoding` `text` takes."""
    if encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    # A code point above the BMP is a surrogate pair in UTF-16.
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def to_code_units(line: str, col: int, encoding: str = UTF16) -> int:
    """A 1-based code-point column on `line` -> a 0-based offset in code units (clamped to the line)."""
    index = min(max(col - 1, 0), len(line))
    return units(line[:index], encoding)


def from_code_units(line: str, offset: int, encoding: str = UTF16) -> int:
    """A 0-based offset in code units -> a 1-based code-point column (an offset inside a
    character counts as that character)."""
    if encoding == UTF32:
        return min(max(offset, 0), len(line)) + 1
    seen = 0
    for index, char in enumerate(line):
        width = units(char, encoding)
        if seen + width > offset:
            return index + 1
        seen += width
    return len(line) + 1


def lsp_position(lines: Sequence[str], line: int, col: int, encoding: str = UTF16) -> dict[str, int]:
    """1-based line and code-point column -> an LSP Position, kept inside the document."""
    if not lines:
        return {"line": 0, "character": 0}
    if line > len(lines):  # e.g. an end one past the last line: the end of the document
        return {"line": len(lines) - 1, "character": units(lines[-1], encoding)}
    index = max(line - 1, 0)
    return {"line": index, "character": to_code_units(lines[index], col, encoding)}


def lsp_range(span: Span, lines: Sequence[str], encoding: str = UTF16) -> dict[str, dict[str, int]]:
    start = lsp_position(lines, span.start_line, span.start_col, encoding)
    end = lsp_position(lines, span.end_line, span.end_col, encoding)
    if (end["line"], end["character"]) < (start["line"], start["character"]):
        end = dict(start)
    return {"start": start, "end": end}


def one_based(span: Span) -> tuple[int, int, int, int]:
    """(line, column, end line, end column), 1-based code points, never before the start:
    what SARIF, GitHub annotations and the text report print."""
    start_line, start_col = max(span.start_line, 1), max(span.start_col, 1)
    end_line, end_col = max(span.end_line, start_line), max(span.end_col, 1)
    if end_line == start_line:
        end_col = max(end_col, start_col)
    return start_line, start_col, end_line, end_col


def sarif_region(span: Span) -> dict[str, int]:
    start_line, start_col, end_line, end_col = one_based(span)
    return {"startLine": start_line, "startColumn": start_col, "endLine": end_line, "endColumn": end_col}


def span_text(span: Span, lines: Sequence[str]) -> str:
    """The source a span covers (1-based code points, end exclusive), "" where the lines lack it."""
    start_line, start_col, end_line, end_col = one_based(span)
    if start_line > len(lines):
        return ""
    if start_line == end_line:
        return lines[start_line - 1][start_col - 1:end_col - 1]
    inside = [lines[start_line - 1][start_col - 1:], *lines[start_line:end_line - 1]]
    if end_line <= len(lines):
        inside.append(lines[end_line - 1][:end_col - 1])
    return "\n".join(inside)
