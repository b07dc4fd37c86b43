"""Issue 18: `str.splitlines` also breaks at \\f, \\v, \\x1c-\\x1e, \\x85, U+2028 and U+2029, which
`ast` and libcst read as characters of a line. A file with U+2028 in a comment was blanked one
line off (a helper's body kept, a module statement's line left as code), and `ast`'s columns
(UTF-8 bytes) were used as character offsets (`X = "éééé"  # c` was not blanked). Each file here
holds one of them in comments, strings and docstrings, before and inside a compiled function:
its outline, blanking and findings must be those of the same file with a space there."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from breaklint.index.def_lines import line_texts, split_lines
from breaklint.index.region_text import outline, region_text

from .support import by_path, chdir, check

SEPARATORS = ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
# `{s}` is a separator, or a space in the plain text; the compiled function is lines 13-18
TEMPLATE = '''import torch
TABLE = {{"a": 1}}  # a table{s}with a separator
NAME = "ab{s}cd"
X = "éééé{s}"  # c

def helper(x):
    """doc{s}string"""
    # comment{s}here
    y = "{s}"
    return x.tolist()

@torch.compile
def f(x):
    """doc{s}string"""
    # comment{s}here
    s = "{s}"; t = x.sum().item()
    return x.sum().item()
'''
COMPILED = (12, 17)


def _outline(text: str) -> tuple:  # type: ignore[type-arg]
    return outline(ast.parse(text), split_lines(text))


@pytest.mark.parametrize("separator", SEPARATORS, ids=repr)
def test_split_lines_counts_as_python_does(separator: str) -> None:
    text = TEMPLATE.format(s=separator)
    assert len(split_lines(text)) == len(TEMPLATE.format(s=" ").split("\n")) - 1
    assert "".join(split_lines(text)) == text
    assert len(line_texts(text)) == len(split_lines(text)) + 1  # the LSP's empty last line
    crlf = text.replace("\n", "\r\n")
    assert [line.rstrip("\r\n") for line in split_lines(crlf)] == line_texts(text)[:-1]
    assert split_lines(text.replace("\n", "\r")) == [line[:-1] + "\r" for line in split_lines(text)]


@pytest.mark.parametrize("separator", SEPARATORS, ids=repr)
def test_blanking_is_that_of_the_plain_text(separator: str) -> None:
    text, plain = TEMPLATE.format(s=separator), TEMPLATE.format(s=" ")
    assert _outline(text) == _outline(plain)
    odd, expected = region_text(text, [COMPILED]), region_text(plain, [COMPILED])
    assert odd is not None and expected is not None
    assert odd.text.replace(separator, " ") == expected.text
    assert (odd.anchors, odd.bodiless) == (expected.anchors, expected.bodiless)


def test_what_the_plain_text_blanks() -> None:
    """Every statement outside the compiled function goes: the module's four are one `pass`
    (`ast` ends `X = "éééé "` at byte 15, character 11), the helper is `def helper():` only."""
    blanked = region_text(TEMPLATE.format(s=" "), [COMPILED])
    assert blanked is not None
    assert blanked.text.split("\n")[:4] == ["pass", "", "def helper():", "    pass"]
    assert "tolist" not in blanked.text and blanked.text.count(".item()") == 2


def test_findings_keep_their_place(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text(TEMPLATE.format(s=" "), encoding="utf-8")
    for number, separator in enumerate(SEPARATORS):
        (tmp_path / f"odd{number}.py").write_text(TEMPLATE.format(s=separator), encoding="utf-8")
    with chdir(tmp_path):
        found = by_path(check([tmp_path], tmp_path).findings)
    expected = sorted(found["plain.py"])
    assert [("BL101", 16, 18), ("BL101", 17, 12)] == [f for f in expected if f[0] == "BL101"]
    for number, separator in enumerate(SEPARATORS):
        assert sorted(found[f"odd{number}.py"]) == expected, repr(separator)


def test_lsp_columns_after_a_separator_and_a_non_bmp_character() -> None:
    """LSP lines end at CRLF, LF, CR only; columns are UTF-16 units (😀 is two)."""
    from breaklint.finding import Span
    from breaklint.report.positions import lsp_range

    text = 'a = "\u2028"\nb = "😀\x1c"; c = x.item()\n'
    lines = line_texts(text)
    assert lsp_range(Span(2, 14, 2, 22), lines)["start"] == {"line": 1, "character": 14}


@pytest.mark.parametrize("separator", ["\u2028", "\f"], ids=repr)
def test_an_edit_below_a_separator_lands_where_the_editor_put_it(tmp_path: Path, separator: str) -> None:
    """pygls applied an incremental edit to the lines of `str.splitlines`: one line off."""
    pytest.importorskip("pygls")
    from .lsp_client import RawLsp

    text = f"import torch\n# a{separator}b\n\n@torch.compile\ndef f(x):\n    return x.sum()\n"
    server = RawLsp(tmp_path)
    try:
        server.initialize(tmp_path)
        uri = server.open(tmp_path / "edited.py", text=text)
        assert server.diagnostics(uri) == []
        at = {"line": 5, "character": len("    return x.sum()")}
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": at, "end": at}, "text": ".item()"}]})
        found = [(d["code"], d["range"]["start"]) for d in server.diagnostics(uri)]
        assert found == [("BL101", {"line": 5, "character": 11})]
        assert server.shutdown() == 0
    finally:
        server.close()


def test_a_suppression_in_a_file_of_lone_carriage_returns(tmp_path: Path) -> None:
    """tokenize read the text by io.StringIO's lines (LF only): a file whose lines end at CR was
    one line to it, and its `# breaklint: ignore` silenced line 1."""
    text = "import torch\n\n@torch.compile\ndef f(x):\n    # breaklint: ignore[BL101]\n    return x.sum().item()\n"
    (tmp_path / "lf.py").write_text(text, encoding="utf-8", newline="")
    (tmp_path / "cr.py").write_text(text.replace("\n", "\r"), encoding="utf-8", newline="")
    with chdir(tmp_path):
        found = by_path(check([tmp_path], tmp_path).findings)
    assert "BL101" not in {code for code, _, _ in found.get("lf.py", [])}
    assert found.get("cr.py", []) == found.get("lf.py", [])
