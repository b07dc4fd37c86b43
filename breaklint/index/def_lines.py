"""A file's lines as Python counts them (CRLF, LF and CR end a line): a def or class read on
its own is parsed from its lines (view.read_alone), and a result that read its code depends on
exactly those lines (scan.text_digests)."""

from __future__ import annotations

import re
from array import array
from itertools import accumulate

# Python (tokenizer, ast) and libcst end a line at CRLF, LF and CR only; str.splitlines also
# breaks at \f, \v, \x1c-\x1e, \x85, U+2028 and U+2029, which a comment or string may hold.
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_lines(text: str) -> list[str]:
    """The lines of `text`, each with its line end (the last one may have none): the one
    splitter of a text into the lines `ast` and libcst number."""
    lines = text.splitlines(keepends=True)
    # The common case: str.splitlines (C, the fastest) found only LF line ends (one each, and
    # the last line without one): any other break it made, CR or odd, adds a line to the count.
    extra = len(lines) - text.count("\n")
    if not extra or (extra == 1 and text[-1] != "\n"):
        return lines
    return _LINES.findall(text)


def line_texts(text: str) -> list[str]:
    """The lines of `text` without their ends, as the LSP counts them: the text after the last
    line end is a line, empty or not."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def line_ends(text: str) -> array:  # type: ignore[type-arg]
    """Where each line of `text` ends (the offset after its line end): a compact stand-in for
    the lines of a file kept to read its defs alone."""
    return array("l", accumulate(len(line) for line in split_lines(text)))
