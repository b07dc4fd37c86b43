"""A file's lines as Python counts them (CRLF, LF and CR end a line): a def or class read on
its own is parsed from its lines (view.read_alone), and a result that read its code depends on
exactly those lines (scan.text_digests)."""

from __future__ import annotations

import re
from array import array
from itertools import accumulate

_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_lines(text: str) -> list[str]:
    """The lines of `text`, each with its line end (the last one may have none)."""
    if "\r" not in text:  # the common case, the same lines as the pattern's, ten times faster
        lines = text.split("\n")
        last = lines.pop()
        lines = [line + "\n" for line in lines]
        if last:
            lines.append(last)
        return lines
    return _LINES.findall(text)


def line_ends(text: str) -> array:  # type: ignore[type-arg]
    """Where each line of `text` ends (the offset after its line end): a compact stand-in for
    the lines of a file kept to read its defs alone."""
    return array("l", accumulate(len(line) for line in split_lines(text)))
