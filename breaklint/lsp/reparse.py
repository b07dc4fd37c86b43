"""An edited buffer parsed again by parsing only the top-level statements the edit touched.

libcst has no incremental parser, and parsing a 3,000-line file is most of what an edit costs the
language server. But the tree of a module is its header, its top-level statements, each exactly
the text from its first leading line to where the next one's begin, and its footer. So when an
edit falls inside statements i..j-1, the new tree is the old statements before i and from j on
(the same nodes), and between them the statements of that stretch of the new text parsed alone.

That equals parsing the whole new text only where the stretch cannot read, or be read by, its
surroundings. Where any of these does not hold, `reparse` gives None and the caller parses all
of it (tests/test_lsp_reparse.py holds both to the same tree on edits of real files):
- the tokenizer is at the top level at both ends: the stretch is whole lines, parses alone, and
  leaves the header and the first statement (which fix the default newline) alone;
- the module's default indent (its first indented block's) is unchanged, and the stretch alone
  infers the same one wherever it has blocks;
- blank and comment lines at either end are not indented: an indented one after a block would
  belong to that block's footer, which the stretch parsed alone cannot see;
- no lone `\\r` line ends (libcst and `ast` would count lines differently from `str.split`), no
  backslash continuation in the stretch, and no whitespace-only line of spaces or tabs at the
  end of the file, before or after the edit (which block's footer it joins needs the whole: a
  seeded edit far above such a tail once lost it).

The language server's buffers are parsed through `BufferTrees`, which keeps each buffer's last
parse: the engine asks it for an open buffer's tree (`Engine(parse_buffer=...)`), so an edit of
a large file costs the statements it touched, not the file.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from pathlib import Path
from dataclasses import dataclass, field
from typing import Sequence

import libcst as cst



@dataclass
class Parse:
    """A buffer's text and its libcst tree."""

    text: str
    tree: cst.Module
    _starts: list[int] | None = field(default=None, repr=False)  # where each top-level statement starts
    _checked: bool = field(default=False, repr=False)

    def starts(self) -> list[int] | None:
        """Offsets of the top-level statements in the text (their leading lines included),
        from their generated code; None when that code is not the text (then never spliced)."""
        if not self._checked:
            self._checked = True
            if self._starts is None:
                self._starts = _statement_starts(self.tree, self.text)
        return self._starts


def reparse(base: Parse, text: str) -> Parse | None:
    """`text` (the buffer after an edit of `base.text`) parsed from `base`, or None."""
    old, tree = base.text, base.tree
    starts = base.starts()
    if starts is None or len(tree.body) < 2 or _lone_cr(text) or _lone_cr(old):
        return None
    if _indented_blank_tail(text) or _indented_blank_tail(old):
        return None  # a whitespace-only line at the end joins the footer of a block the edit may not touch
    a = _common_prefix(old, text)
    c = _common_suffix(old, text, min(len(old), len(text)) - a)
    if a == len(old) == len(text):
        return base  # nothing changed
    # Statements i..j-1 hold the edit: i the one holding the last unchanged character before it
    # (so a line appended to a statement's body reparses that statement), j the first that
    # starts at or after the edit's end.
    i = bisect_right(starts, a - 1) - 1
    j = bisect_left(starts, len(old) - c)
    if i < 1:
        return None  # the header and the first statement fix the module's default newline
    n = len(tree.body)
    begin = starts[i]
    end = starts[j] + len(text) - len(old) if j < n else len(text)
    stretch = text[begin:end]
    if j < n and stretch and not stretch.endswith("\n"):
        return None
    if "\\\n" in stretch or "\\\r" in stretch:
        return None  # a backslash continuation: its indentation is read against the whole module's
    try:
        alone = cst.parse_module(stretch)
    except (cst.ParserSyntaxError, RecursionError, UnicodeError, ValueError):
        return None  # the whole text decides what the error is
    body = list(alone.body)
    if not body and (stretch or j == n):
        return None  # blank lines and comments alone would join a neighbour
    if body and alone.default_newline != tree.default_newline:
        return None
    # The module's default indent is its first indented block's: the new nodes must be made
    # with the same one, and it must stay the same.
    simple = all(isinstance(statement, cst.SimpleStatementLine) for statement in body)  # no block at all
    if not _has_block(tree.body[:i]):
        still_after = simple and all(isinstance(s, cst.SimpleStatementLine) for s in tree.body[:j])
        if not (still_after or (_has_block(body) and alone.default_indent == tree.default_indent)):
            return None
    elif not simple and alone.default_indent != tree.default_indent:
        return None
    if alone.header:
        if any(line.whitespace.value for line in alone.header) or body[0].leading_lines:
            return None
        body[0] = body[0].with_changes(leading_lines=alone.header)  # as the whole parse attaches them
    if j < n:
        if alone.footer or any(line.whitespace.value for line in tree.body[j].leading_lines):
            return None
        new_tree = tree.with_changes(body=[*tree.body[:i], *body, *tree.body[j:]])
    else:
        if _indented_blank_tail(stretch):
            return None  # which block's footer a whitespace-only line at the end joins needs it all
        new_tree = tree.with_changes(body=[*tree.body[:i], *body], footer=alone.footer,
                                     has_trailing_newline=alone.has_trailing_newline)
    new_starts = _spliced_starts(new_tree, text, starts, i, j, body, begin, len(text) - len(old))
    if new_starts is None:
        return None
    return Parse(text, new_tree, new_starts, True)


def _indented_blank_tail(text: str) -> bool:
    """Whether the blank lines that end `text` hold one of spaces or tabs only (`"\\t"`)."""
    for line in reversed(text.split("\n")):
        if line.strip():
            return False
        if line.strip("\r"):
            return True
    return False


def _spliced_starts(tree: cst.Module, text: str, starts: list[int], i: int, j: int, body: list[cst.BaseStatement],
                    begin: int, delta: int) -> list[int] | None:
    """The statements' offsets after the splice: the reparsed ones from their code (checked
    against the text), the ones after them moved by the edit's length."""
    middle = []
    at = begin
    for index, statement in enumerate(body):
        middle.append(at)
        code = tree.code_for_node(statement)
        if index < len(body) - 1 or j < len(starts):
            if text[at:at + len(code)] != code:
                return None
        at += len(code)
    return [*starts[:i], *middle, *(s + delta for s in starts[j:])]


def _statement_starts(tree: cst.Module, text: str) -> list[int] | None:
    header = "".join(tree.code_for_node(line) for line in tree.header)
    if not text.startswith(header):
        return None
    starts, at = [], len(header)
    for index, statement in enumerate(tree.body):
        starts.append(at)
        code = tree.code_for_node(statement)
        if index < len(tree.body) - 1 and text[at:at + len(code)] != code:
            return None
        at += len(code)
    return starts


def _has_block(statements: Sequence[cst.BaseStatement]) -> bool:
    return any(isinstance(getattr(statement, "body", None), cst.IndentedBlock) for statement in statements)


def _lone_cr(text: str) -> bool:
    return "\r" in text and text.count("\r") != text.count("\r\n")


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix (by halving: each comparison runs in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(a: str, b: str, limit: int) -> int:
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle:len(a) - low] == b[len(b) - middle:len(b) - low]:
            low = middle
        else:
            high = middle - 1
    return low


class BufferTrees:
    """The last parse of each open buffer; `parse(path, text)` reparses from it where it can
    (else parses the whole text, raising what libcst raises)."""

    def __init__(self) -> None:
        self.last: dict[Path, Parse] = {}

    def parse(self, path: Path, text: str) -> cst.Module:
        base = self.last.get(path)
        found = reparse(base, text) if base is not None else None
        if found is None:
            found = Parse(text, cst.parse_module(text))
        self.last[path] = found
        return found.tree

    def forget(self, keep: set[Path]) -> None:
        """Drop the parses of buffers that are closed."""
        for path in self.last.keys() - keep:
            del self.last[path]
