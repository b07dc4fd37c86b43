"""The pre-pass's cheaper steps give what the plainer ones gave (index/builder.py, scan.py,
region_text.py, suppress.py): line starts, definitions' digests, the outline, the suppression
prefilter."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from breaklint.index.builder import line_starts

_LINE_END = re.compile(rb"\r\n|\r|\n")


def starts_by_pattern(source: bytes) -> list[int]:
    """Where ast's lines start: after every CRLF, LF or lone CR."""
    return [0, *(match.end() for match in _LINE_END.finditer(source))]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="a\r\n é", max_size=40))
def test_line_starts_are_where_pythons_lines_start(text: str) -> None:
    source = text.encode("utf-8")
    assert line_starts(source) == starts_by_pattern(source)


def test_line_starts_edges() -> None:
    for source in (b"", b"a", b"\n", b"a\n", b"a\r\nb", b"\r", b"a\rb\r\n", b"\n\n"):
        assert line_starts(source) == starts_by_pattern(source), source
