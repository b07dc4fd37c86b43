"""Issue 6, item 1: every kind of bad file gets its own located BL0xx finding (or is skipped with
a reason), every other file is still checked, and the exit code says so.

tests/test_bad_input.py covers the basics (syntax error, not UTF-8, PEP 263, BOM, NUL bytes,
empty, missing, unreadable, a broken symlink); this file adds the hostile and the unusual. Cases
that could kill the process (the native parser, an endless read) run `breaklint` in a subprocess.
"""

from __future__ import annotations

import os
import sys
import resource
from pathlib import Path

import pytest

from testdata import HANG_GUARD_S

from .support import BAD, GOOD_FINDING, assert_no_crash, by_path, check, exit_status, position_problems, run_cli

GOOD = [(GOOD_FINDING[1], GOOD_FINDING[2], GOOD_FINDING[3])]


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.py").write_text(BAD, encoding="utf-8")
    return tmp_path


def checked(tree: Path, **settings: object) -> tuple[dict[str, list[tuple[str, int, int]]], int]:
    result = check([tree], root=tree, **settings)
    files = {p.relative_to(tree).as_posix(): p.read_bytes() for p in tree.rglob("*.py") if p.is_file()}
    assert position_problems(result.findings, files) == []
    found = by_path(result.findings)
    assert found["good.py"] == GOOD  # the bad file never hides the good one
    return found, exit_status(result)


# --- syntax: Python 2, located errors, new syntax -----------------------------------------------
PYTHON2 = {
    "print_statement.py": 'import sys\nprint "hello", sys.argv\n',
    "exec_statement.py": 'x = 1\nexec "x = 2"\n',
    "backticks.py": "x = 1\ny = `x`\n",
    "octal.py": "mode = 0777\n",
    "ur_string.py": 'x = 1\ny = ur"raw"\n',
    "diamond.py": "a, b = 1, 2\nif a <> b:\n    pass\n",
    "raise_comma.py": 'def f():\n    raise ValueError, "bad"\n',
    "tuple_params.py": "f = 1\ndef g((a, b)):\n    return a\n",
    "mixed_tabs.py": "if True:\n        x = 1\n\ty = 2\n",
}


@pytest.mark.parametrize("name", sorted(PYTHON2))
def test_python2_code_is_a_located_syntax_error(tree: Path, name: str) -> None:
    (tree / name).write_text(PYTHON2[name], encoding="utf-8")
    found, status = checked(tree)
    assert [code for code, _, _ in found[name]] == ["BL001"]  # where: test_syntax_error_is_where_python_says
    assert status == 1  # findings, no internal error


@pytest.mark.parametrize("text,line,col", [
    ("import torch\n    x = 1\n", 2, 4),  # unexpected indent: CPython (3.10-3.13) 2:4, libcst 3:5
    ('def f(x):\n"""doc string that is long"""\n@torch.compile\n', 2, 1),  # expected an indented block
    ("x = 1\ny = = 2\n", 2, 5),
    ("x = 1\ny = `x`\n", 2, 5),  # Python 2 backticks: libcst says 1:1
])
def test_syntax_error_is_where_python_says(tree: Path, text: str, line: int, col: int) -> None:
    (tree / "broken.py").write_text(text, encoding="utf-8")
    with pytest.raises(SyntaxError) as error:
        compile(text, "broken.py", "exec")
    assert (error.value.lineno, error.value.offset) == (line, col)
    found, _ = checked(tree)
    assert found["broken.py"] == [("BL001", line, col)]
    message, = [f.message for f in check([tree / "broken.py"], root=tree).findings]
    assert message == f"syntax error: {error.value.msg}"  # Python's words too


NEW_SYNTAX = '''\
import torch


type Pair[T] = tuple[T, T]


class Box[T: (int, float), *Ts, **P]:
    def get[U](self, x: U) -> U:
        return x


@torch.compile
def step[T](x: T, key: str):
    match key:
        case "scalar" if x.dim() == 0:
            return x.item()
        case {"k": [first, *rest]}:
            return first
        case Box(value=v) | [v, _]:
            return v
    name = f"{key!r:>{10}} {f"{x.shape}"}"
    return x
'''


def test_new_syntax_is_judged_by_the_running_python(tree: Path) -> None:
    """3.12 type parameters and aliases, PEP 701 f-strings: Python's own parser is the judge
    (one indexer, one parser). Under a Python that reads them the file is checked like any code;
    under an older one it is a located BL001, and the other files are still checked."""
    (tree / "modern.py").write_text(NEW_SYNTAX, encoding="utf-8")
    (tree / "plain.py").write_text("import torch\n\n@torch.compile\ndef f(x):\n    return x.item()\n", encoding="utf-8")
    found, status = checked(tree)
    if sys.version_info >= (3, 12):
        assert found["modern.py"] == [("BL101", 16, 20)]
    else:
        assert found["modern.py"] == [("BL001", 4, 6)]
    assert found["plain.py"] == [("BL101", 5, 12)]
    assert status == 1


# --- text that is not what it seems --------------------------------------------------------------
def test_encoding_declarations(tree: Path) -> None:
    (tree / "klingon.py").write_bytes(b"# -*- coding: klingon -*-\nx = 1\n")
    (tree / "second_line.py").write_bytes(b"#!/usr/bin/env python\n# coding: cp1252\nimport torch\n\n"
                                          b"@torch.compile\ndef f(x):\n    s = '\x93quoted\x94'\n    return x.item()\n")
    (tree / "bom_and_latin1.py").write_bytes(b"\xef\xbb\xbf# coding: latin-1\nx = 1\n")
    (tree / "utf16.py").write_bytes("x = 'hello'\n".encode("utf-16"))
    found, status = checked(tree)
    assert [c for c, _, _ in found["klingon.py"]] == ["BL002"]
    assert found["second_line.py"] == [("BL101", 8, 12)]
    assert [c for c, _, _ in found["bom_and_latin1.py"]] == ["BL002"]
    assert [c for c, _, _ in found["utf16.py"]] in (["BL002"], ["BL003"])  # NUL bytes or bad UTF-8
    assert status == 1


def test_an_encoding_that_decodes_to_a_lone_surrogate(tree: Path) -> None:
    """`raw_unicode_escape` turns the six characters `\\ud800` into a lone surrogate, which no
    parser can encode (Python's refuses the file too): BL002 at the escape, not a crash."""
    (tree / "escaped.py").write_bytes(b"# coding: raw_unicode_escape\nimport torch\n\n@torch.compile\n"
                                      b"def f(x):\n    s = '\\ud800'\n    return x.sum().item()\n")
    found, status = checked(tree)
    assert found["escaped.py"] == [("BL002", 6, 10)]
    assert status == 1


def test_odd_but_valid_text(tree: Path) -> None:
    """Only a BOM, only comments, a form feed, CRLF line ends, a file without a final newline:
    all valid Python; the CRLF file's finding is where an editor shows it."""
    (tree / "only_bom.py").write_bytes(b"\xef\xbb\xbf")
    (tree / "only_comments.py").write_text("# nothing\n\n# here\n", encoding="utf-8")
    (tree / "form_feed.py").write_text("x = 1\n\x0c\ny = 2\n", encoding="utf-8")
    (tree / "crlf.py").write_bytes(BAD.replace("\n", "\r\n").encode())
    (tree / "no_newline.py").write_text(BAD.rstrip("\n"), encoding="utf-8")
    found, status = checked(tree)
    assert found["crlf.py"] == GOOD and found["no_newline.py"] == GOOD
    assert not {"only_bom.py", "only_comments.py", "form_feed.py"} & found.keys()
    assert status == 1


def test_nul_byte_inside_valid_code(tree: Path) -> None:
    (tree / "png.py").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (tree / "nul_in_code.py").write_bytes(BAD.encode() + b"x = '\x00'\n")
    found, _ = checked(tree)
    assert [c for c, _, _ in found["png.py"]] == ["BL003"]
    assert [c for c, _, _ in found["nul_in_code.py"]] == ["BL003"]


# --- size and depth ------------------------------------------------------------------------------
def test_a_100000_line_file(tree: Path) -> None:
    """Checked in full: the finding on its last lines is reported at the right line. 10,000
    lines of statements and a 90,000-line string (all statements would cost CI ~10 s of
    libcst's parse; the long fuzz run is where time goes)."""
    body = ("import torch\n" + "x = 1\n" * 9_993 + 'TEXT = """\n' + "a line of text\n" * 90_000 + '"""\n'
            + "\n@torch.compile\ndef f(x):\n    return x.sum().item()\n")
    (tree / "huge.py").write_text(body, encoding="utf-8")
    assert body.count("\n") == 100_000
    found, _ = checked(tree)
    assert found["huge.py"] == [("BL101", 100_000, 12)]


def test_a_file_over_the_size_limit_is_skipped_with_a_reason(tree: Path) -> None:
    with open(tree / "sparse.py", "wb") as handle:
        handle.truncate(9 * 1024 * 1024)  # sparse: no disk used
    found, _ = checked(tree)
    assert [c for c, _, _ in found["sparse.py"]] == ["BL003"]


def test_deep_statement_nesting(tree: Path) -> None:
    """99 nested blocks (CPython's limit is 100) still check; 101 is CPython's own syntax error."""
    deep = "import torch\n\n@torch.compile\ndef f(x):\n" + "".join(
        "    " * (i + 1) + "if x.dim():\n" for i in range(97)) + "    " * 98 + "y = x.sum().item()\n"
    (tree / "deep_blocks.py").write_text(deep, encoding="utf-8")
    (tree / "too_deep.py").write_text("".join("    " * i + "if x:\n" for i in range(101)) + "    " * 101 + "pass\n")
    found, _ = checked(tree)
    assert found["deep_blocks.py"] == [("BL101", 102, 4 * 98 + 5)]
    assert [c for c, _, _ in found["too_deep.py"]] == ["BL001"]


DEEP = {
    # CPython: "too many nested parentheses" (its limit is 200); libcst's native parser overflows
    # its stack (SIGSEGV) at about 1,500 and needs seconds per file from about 300.
    "parens": "(" * 1500 + "x" + ")" * 1500,
    "calls": "g(" * 400 + "x" + ")" * 400,
    # CPython: MemoryError / RecursionError "during ast construction"; libcst: SIGSEGV or minutes
    "not_chain": "not " * 20_000 + "x",
    "sum_chain": " + ".join(["x"] * 3_000),
    # CPython parses these; the tree is deep enough to exhaust Python's recursion limit
    "sum_900": " + ".join(["x"] * 900),
    "attrs_900": "x" + ".a" * 900,
}


@pytest.mark.parametrize("kind", list(DEEP))
def test_deeply_nested_expression(tree: Path, kind: str) -> None:
    """A located BL001 (CPython rejects it too) or the file checked as usual; never a crash, never
    an internal error blamed on a rule. (How long it takes is benchmarks/deep_expressions.py's.)"""
    (tree / "deep.py").write_text(
        f"import torch\n\n@torch.compile\ndef f(x, g):\n    y = {DEEP[kind]}\n    return x.sum().item()\n",
        encoding="utf-8")
    run = run_cli(["check", "--no-cache", "--format", "json", "."], cwd=tree, timeout=HANG_GUARD_S)
    assert_no_crash(run)
    found = run.found()
    assert ("good.py", "BL101", 5, 12) in found
    deep = {(code, line) for path, code, line, _ in found if path == "deep.py"}
    assert deep in ({("BL001", 5)}, {("BL101", 6)}), deep
    assert run.returncode == 1


def _small_stack() -> None:
    resource.setrlimit(resource.RLIMIT_STACK, (1024 * 1024, 1024 * 1024))


def test_flat_to_python_but_deep_to_libcst(tree: Path) -> None:
    """`x and x and ...` is one BoolOp to Python's parser and 2,500 nested BooleanOperations to
    libcst, whose native parser overflowed a 1 MiB stack with it (SIGSEGV; on the usual 8 MiB
    from about 7,000 terms). Checked as usual, in the main process (one job)."""
    chain = " and ".join(["x"] * 2_500)
    (tree / "deep.py").write_text(
        f"import torch\n\n@torch.compile\ndef f(x, g):\n    y = {chain}\n    return x.sum().item()\n",
        encoding="utf-8")
    run = run_cli(["check", "--no-cache", "--format", "json", "--jobs", "1", "."], cwd=tree, timeout=HANG_GUARD_S,
                  preexec_fn=_small_stack)
    assert_no_crash(run)
    found = run.found()
    assert {("good.py", "BL101", 5, 12), ("deep.py", "BL101", 6, 12)} <= found
    assert not {code for path, code, _, _ in found if path == "deep.py"} & {"BL001", "BL005"}
    assert run.returncode == 1


# --- the file system -----------------------------------------------------------------------------
def test_symlink_loops(tree: Path) -> None:
    (tree / "loop_a.py").symlink_to(tree / "loop_b.py")
    (tree / "loop_b.py").symlink_to(tree / "loop_a.py")
    (tree / "self.py").symlink_to(tree / "self.py")
    found, status = checked(tree)
    for name in ("loop_a.py", "loop_b.py", "self.py"):
        assert [c for c, _, _ in found[name]] == ["BL003"]
    assert status == 1


def test_directory_symlink_loop_is_not_followed(tree: Path) -> None:
    (tree / "pkg").mkdir()
    (tree / "pkg" / "mod.py").write_text(BAD, encoding="utf-8")
    (tree / "pkg" / "again").symlink_to(tree)  # `pkg/again/pkg/again/...` forever, if followed
    found, _ = checked(tree)
    assert found == {"good.py": GOOD, "pkg/mod.py": GOOD}


def test_file_vanishing_after_discovery(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The directory listing saw it; by the time it is read it is gone (an editor's temp file)."""
    (tree / "vanish.py").write_text(BAD, encoding="utf-8")
    real_walk = os.walk

    def walk_then_delete(top, *args, **kwargs):  # type: ignore[no-untyped-def]
        for entry in real_walk(top, *args, **kwargs):
            yield entry
            if "vanish.py" in entry[2]:
                (Path(entry[0]) / "vanish.py").unlink()

    monkeypatch.setattr(os, "walk", walk_then_delete)
    result = check([tree], root=tree)
    found = by_path(result.findings)
    assert found["good.py"] == GOOD
    assert [c for c, _, _ in found["vanish.py"]] == ["BL003"]
    assert "No such file" in next(f.message for f in result.findings if f.path == "vanish.py")


def test_file_changing_while_it_is_checked(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read once for the pre-pass, then rewritten or deleted before it is read again: the run
    goes on and reports what it read, or that the file is gone — never an exception."""
    for name in ("shrinks.py", "goes.py"):
        (tree / name).write_text(BAD + "\n\ndef helper(x):\n    return x.tolist()\n", encoding="utf-8")
    import breaklint.index.scan

    real_read = breaklint.index.scan.read_capped

    def read_then_change(path: Path) -> object:  # the pre-pass's read; the deep parse reads again
        data = real_read(path)
        if path.name == "shrinks.py":
            path.write_text("x = (\n", encoding="utf-8")
        elif path.name == "goes.py" and path.exists():
            path.unlink()
        return data

    monkeypatch.setattr(breaklint.index.scan, "read_capped", read_then_change)
    result = check([tree], root=tree)
    found = by_path(result.findings)
    assert found["good.py"] == GOOD
    for name in ("shrinks.py", "goes.py"):
        assert {c for c, _, _ in found[name]} <= {"BL101", "BL001", "BL003"}, found[name]
        assert found[name] == GOOD, found[name]  # what the pre-pass read is what is checked
    assert "BL005" not in {f.code for f in result.findings}


def test_unreadable_file_even_as_root(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """tests/test_bad_input.py chmods a file, which root (CI's containers) reads anyway: here
    opening it fails as it would for anyone else."""
    (tree / "locked.py").write_text(BAD, encoding="utf-8")
    real_open = os.open

    def refuse(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if Path(path).name == "locked.py":
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)  # files.read_regular opens with os.open
    result = check([tree], root=tree)
    found = by_path(result.findings)
    assert found == {"good.py": GOOD, "locked.py": [("BL003", 1, 1)]}
    assert "Permission denied" in next(f.message for f in result.findings if f.path == "locked.py")
    assert exit_status(result) == 1


def test_fifo_is_skipped_not_waited_for(tree: Path) -> None:
    os.mkfifo(tree / "pipe.py")
    run = run_cli(["check", "--no-cache", "--format", "json", "."], cwd=tree, timeout=HANG_GUARD_S)
    assert_no_crash(run)
    assert ("good.py",) + GOOD_FINDING[1:] in run.found()
    assert [r["code"] for r in run.records() if r["path"] == "pipe.py"] == ["BL003"]


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 * 1024 ** 3 // 2, 3 * 1024 ** 3 // 2))  # fail fast, never swap


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_endless_device_is_skipped(tree: Path) -> None:
    (tree / "zero.py").symlink_to("/dev/zero")
    run = run_cli(["check", "--no-cache", "--format", "json", "."], cwd=tree, timeout=HANG_GUARD_S, preexec_fn=_limit_memory)
    assert_no_crash(run)
    assert [r["code"] for r in run.records() if r["path"] == "zero.py"] == ["BL003"]


def test_everything_at_once_through_the_cli(tree: Path) -> None:
    """One run over a tree holding one of each bad file that is handled today: one located
    finding each, good.py's finding, exit code 1, nothing on stderr."""
    (tree / "syntax.py").write_text("def f(:\n", encoding="utf-8")
    (tree / "latin.py").write_bytes(b"x = 'caf\xe9'\n")
    (tree / "blob.py").write_bytes(b"\x00\x01")
    (tree / "empty.py").write_bytes(b"")
    (tree / "dangling.py").symlink_to(tree / "nowhere.py")
    (tree / "py2.py").write_text('print "hi"\n', encoding="utf-8")
    (tree / "modern.py").write_text(NEW_SYNTAX, encoding="utf-8")
    run = run_cli(["check", "--format", "json", ".", "missing.py"], cwd=tree)
    assert_no_crash(run)
    assert run.stderr == ""
    codes = {}
    for record in run.records():
        codes.setdefault(record["path"], []).append(record["code"])
    assert codes == {"good.py": ["BL101"], "syntax.py": ["BL001"], "latin.py": ["BL002"], "blob.py": ["BL003"],
                     "dangling.py": ["BL003"], "missing.py": ["BL003"], "py2.py": ["BL001"],
                     "modern.py": ["BL101"] if sys.version_info >= (3, 12) else ["BL001"]}
    assert run.returncode == 1
