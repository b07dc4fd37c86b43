"""Issue 18, item 7: valid Python that libcst rejects (`(x): int = 1`) gave a BL001 at the wrong
place and lost the file's real findings; the language server put that BL001 at 0:0. Python's
compiler is the judge: the statement libcst cannot read is blanked, the rest of the file is
checked, and every finding keeps its line and column."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from breaklint.index.libcst_gaps import MAX_GAPS, parse_around_gaps

from .support import BAD, run_cli

# BAD's `.item()` is at 5:12; each case adds libcst-rejected lines after it, and a second
# finding whose place must not move.
TAIL = "\n@torch.compile\ndef g(t):\n{body}    return t.tolist()\n"
CASES = {
    "module_level.py": (BAD + "(x): int = 1\n" + TAIL.format(body=""), 10),
    "in_a_function.py": (BAD + TAIL.format(body="    (y): int = 1\n"), 10),
    "joined_by_semicolon.py": (BAD + TAIL.format(body="    a = 1; (z): int = 3\n"), 10),
    "two_of_them.py": (BAD + "(x): int = 1\n" + TAIL.format(body="    (y): int = 1\n"), 11),
}


def _rejected_by_libcst(text: str) -> cst.ParserSyntaxError:
    compile(text, "case.py", "exec", dont_inherit=True)  # valid Python ...
    with pytest.raises(cst.ParserSyntaxError) as rejected:  # ... that libcst does not read
        cst.parse_module(text)
    return rejected.value


def test_valid_python_libcst_rejects_keeps_its_findings(tmp_path: Path) -> None:
    expected = set()
    for name, (text, tolist_line) in CASES.items():
        _rejected_by_libcst(text)
        (tmp_path / name).write_text(text, encoding="utf-8")
        expected |= {(name, "BL101", 5, 12), (name, "BL101", tolist_line, 12)}
    run = run_cli(["check", "--no-cache", "--format", "json", "."], cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    found = {(r["path"], r["code"], r["start_line"], r["start_column"]) for r in run.records()}
    assert found == expected


def test_the_language_server_gives_the_same_verdict(tmp_path: Path) -> None:
    pytest.importorskip("pygls")
    from .lsp_client import diagnostics_on_disk_and_in_a_buffer

    text, tolist_line = CASES["module_level.py"]
    (tmp_path / "gap.py").write_text(text, encoding="utf-8")
    for diagnostics in diagnostics_on_disk_and_in_a_buffer(tmp_path, tmp_path / "gap.py", text):
        assert sorted((d["code"], d["range"]["start"]["line"]) for d in diagnostics) == [
            ("BL101", 4), ("BL101", tolist_line - 1)]


def test_a_real_syntax_error_is_still_one() -> None:
    text = BAD + "def broken(:\n"
    with pytest.raises(cst.ParserSyntaxError) as rejected:
        cst.parse_module(text)
    assert parse_around_gaps(text, rejected.value, cst.parse_module) is None


def test_blanking_keeps_lines_and_gives_up_past_the_limit() -> None:
    text, _ = CASES["two_of_them.py"]
    gaps = parse_around_gaps(text, _rejected_by_libcst(text), cst.parse_module)
    assert gaps is not None and gaps.lines == ((6, 6), (10, 10))
    assert gaps.text.splitlines()[5] == "pass" and gaps.text.count("\n") == text.count("\n")
    many = "".join("(x): int = 1\n" for _ in range(MAX_GAPS + 1))
    assert parse_around_gaps(many, _rejected_by_libcst(many), cst.parse_module) is None
