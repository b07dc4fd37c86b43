"""Issue 18, item 2: a file name is data, never output structure. A name that is not UTF-8 is
checked like any other (it once ended the run with a UnicodeEncodeError and no findings at all),
and a newline or a terminal escape in a name never reaches a human format raw: the text format
once printed `::error file=evil.py,line=1::INJECTED` as a line of its own, which a CI runner
acts on."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from testdata import HANG_GUARD_S

from .support import BAD, breaklint_command

# The same file (one BL101 at 5:12) under hostile names, as bytes: what is on disk.
NAMES = [
    b"good.py",
    b"bad\xff.py",  # not UTF-8: Python sees a lone surrogate, "\udcff"
    b"evil.py\n::error file=evil.py,line=1::INJECTED\n.py",
    b"\x1b[2J\x1b[31mred.py",  # clears the screen, turns it red
    "sep\u2028line.py".encode(),  # a Unicode line separator
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in NAMES:
        try:
            (tmp_path / os.fsdecode(name)).write_text(BAD, encoding="utf-8")
        except (OSError, UnicodeEncodeError):
            pytest.skip(f"this file system refuses the name {name!r}")
    return tmp_path


def run_bytes(args: list[str], cwd: Path) -> tuple[int, bytes, bytes]:
    done = subprocess.run([*breaklint_command(), *args], cwd=cwd, capture_output=True, timeout=HANG_GUARD_S,
                          stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout, done.stderr


def output(tree: Path, fmt: str, jobs: int, to_file: bool) -> str:
    """The report, which must be valid UTF-8 whatever the names."""
    out = tree.parent / f"report-{fmt}-{jobs}.txt"
    args = ["check", "--no-cache", "--jobs", str(jobs), "--format", fmt, *(["-o", str(out)] if to_file else []), "."]
    code, stdout, stderr = run_bytes(args, tree)
    assert code == 1, stderr.decode(errors="replace")[-3000:]
    assert b"Traceback" not in stderr, stderr.decode(errors="replace")[-3000:]
    return (out.read_bytes() if to_file else stdout).decode("utf-8")


def no_control_characters(text: str) -> None:
    for line in text.split("\n"):
        assert line.isprintable(), repr(line)
        assert not line.lstrip().startswith("::") or line.startswith(("::warning ", "::error ", "::notice "))


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("to_file", [False, True], ids=["stdout", "output-file"])
def test_text_format_prints_each_name_escaped_on_its_line(tree: Path, jobs: int, to_file: bool) -> None:
    text = output(tree, "text", jobs, to_file)
    no_control_characters(text)
    assert not any(line.lstrip().startswith("::") for line in text.splitlines())
    starts = sorted(line.split(":5:12: ")[0] for line in text.splitlines() if ":5:12: BL101 " in line)
    assert starts == sorted([
        "good.py", "bad\\xff.py", "evil.py\\n::error file=evil.py,line=1::INJECTED\\n.py",
        "\\x1b[2J\\x1b[31mred.py", "sep\\u2028line.py",
    ])
    assert text.splitlines()[-1].startswith("Found 5 findings")


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("to_file", [False, True], ids=["stdout", "output-file"])
def test_github_format_is_one_annotation_per_finding(tree: Path, jobs: int, to_file: bool) -> None:
    text = output(tree, "github", jobs, to_file)
    no_control_characters(text)
    lines = text.split("\n")[:-1]
    assert len(lines) == len(NAMES) and all(line.startswith("::warning file=") for line in lines), lines
    files = {line.split(",line=5,")[0].removeprefix("::warning file=") for line in lines}
    assert files == {"good.py", "bad\\xff.py", "evil.py%0A%3A%3Aerror file=evil.py%2Cline=1%3A%3AINJECTED%0A.py",
                     "\\x1b[2J\\x1b[31mred.py", "sep\\u2028line.py"}  # a newline as GitHub unescapes it


@pytest.mark.parametrize("jobs", [1, 2])
def test_machine_formats_keep_the_exact_names(tree: Path, jobs: int) -> None:
    names = {os.fsdecode(name) for name in NAMES}
    records = json.loads(output(tree, "json", jobs, to_file=True))
    assert {(r["path"], r["code"], r["start_line"], r["start_column"]) for r in records} == {
        (name, "BL101", 5, 12) for name in names}
    sarif = json.loads(output(tree, "sarif", jobs, to_file=False))
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert "bad%FF.py" in uris and len(uris) == len(NAMES)
    lsp = json.loads(output(tree, "lsp", jobs, to_file=False))
    assert set(lsp) == {(tree / name).as_uri() for name in names}
    assert all([d["range"]["start"] for d in found] == [{"line": 4, "character": 11}] for found in lsp.values())


def test_a_config_error_names_a_hostile_folder_on_one_line(tmp_path: Path) -> None:
    project = tmp_path / os.fsdecode(b"evil\n::error::INJECTED\xff")
    try:
        project.mkdir()
    except OSError:
        pytest.skip("this file system refuses the name")
    (project / "pyproject.toml").write_text("[tool.breaklint]\ncolour = 'red'\n", encoding="utf-8")
    (project / "good.py").write_text(BAD, encoding="utf-8")
    code, stdout, stderr = run_bytes(["check", "."], project)
    assert code == 2 and stdout == b""
    message = stderr.decode("utf-8")
    assert len(message.splitlines()) == 1 and "unknown key 'colour'" in message, message
    no_control_characters(message)


def test_the_confirm_report_escapes_names_and_what_a_target_printed() -> None:
    from breaklint.confirm.join import JoinResult
    from breaklint.confirm.runner import TargetRun
    from breaklint.confirm.session import ConfirmReport, render_text
    from breaklint.confirm.targets import Target
    from breaklint.finding import Confidence, Finding, Severity, Span, Stage

    hostile = os.fsdecode(b"evil\n::error::INJECTED\xff.py")
    finding = Finding("BL006", "target-failed", "the target raised", hostile, Span(1, 1, 1, 2), Severity.ERROR,
                      Confidence.CERTAIN, Stage.META)
    run = TargetRun(Target(Path("/tmp") / hostile, "provider", 1), error="exited with code 1: \x1b[2J::error::x")
    text = render_text(ConfirmReport([run], JoinResult([], [finding]), []))
    text.encode("utf-8")  # writable
    no_control_characters(text)
    assert not any(line.lstrip().startswith("::") for line in text.splitlines())
    assert "evil\\n::error::INJECTED\\xff.py:1:1: BL006" in text and "\\x1b[2J" in text
