"""ruff's command-line conventions, which users reach for: `--output-format` (and `--format`),
`concise`, stdin, `--show-settings`, `--show-files`, `--extend-select`, `-V`, and an exit code
that `possible` notes (severity info) do not fail unless `--fail-on info`."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from testdata import HANG_GUARD_S

from breaklint import __version__
from breaklint.config import load_config

BAD = "import torch\n\n@torch.compile\ndef f(x):\n    return x.sum().item()\n"
# One `possible` note (severity info): a side effect in a branch that only warns.
NOTE = ("import torch\nimport warnings\n\n@torch.compile\ndef f(x, legacy=None):\n    if legacy is not None:\n"
        "        warnings.warn('legacy is deprecated')\n    return x + 1\n")


def breaklint(*args: str, cwd: Path, stdin: str | bytes | None = None) -> subprocess.CompletedProcess[str]:
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    completed = subprocess.run([sys.executable, "-m", "breaklint", *args], cwd=cwd, capture_output=True,
                               input=data if data is not None else b"", timeout=HANG_GUARD_S)
    return subprocess.CompletedProcess(completed.args, completed.returncode, completed.stdout.decode("utf-8"),
                                       completed.stderr.decode("utf-8"))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bad.py").write_text(BAD, encoding="utf-8")
    (tmp_path / "note.py").write_text(NOTE, encoding="utf-8")
    return tmp_path


def test_output_format_and_its_alias(tree: Path) -> None:
    new = breaklint("check", "src", "--output-format", "json", cwd=tree)
    old = breaklint("check", "src", "--format", "json", cwd=tree)
    assert new.returncode == old.returncode == 1
    assert [r["code"] for r in json.loads(new.stdout)] == ["BL101"] and new.stdout == old.stdout


def test_concise_is_one_line_a_finding(tree: Path) -> None:
    lines = breaklint("check", "src", "--output-format", "concise", cwd=tree).stdout.splitlines()
    assert lines == [
        "src/bad.py:5:12: BL101 warning [likely] `.item()` in compiled region `f` via src/bad.py:3 turns a tensor "
        "into a Python scalar and forces a graph break",
        lines[1],
    ]
    assert lines[1].startswith("Found 1 finding (1 warning; 1 in compiled regions; 1 file, ")
    quiet = breaklint("check", "src", "--output-format", "concise", "--quiet", cwd=tree).stdout
    assert quiet == lines[0] + "\n"


def test_possible_notes_do_not_fail_unless_asked(tree: Path) -> None:
    note = breaklint("check", "note.py", cwd=tree)
    assert "BL106 info [possible]" in note.stdout and note.returncode == 0
    assert breaklint("check", "note.py", "--fail-on", "info", cwd=tree).returncode == 1
    assert breaklint("check", ".", cwd=tree).returncode == 1  # the warning still fails
    assert breaklint("check", ".", "--fail-on", "error", cwd=tree).returncode == 0
    assert breaklint("check", ".", "--fail-on", "fatal", cwd=tree).returncode == 2


def test_stdin_with_a_filename(tree: Path) -> None:
    """The text on stdin is checked as that file (settings and excludes found from its path),
    reported under its name; the file on disk is not read, and need not exist."""
    (tree / "pyproject.toml").write_text("[tool.breaklint]\nextend-exclude = ['generated']\n", encoding="utf-8")
    clean = breaklint("check", "-", "--stdin-filename", "src/bad.py", "--output-format", "json", cwd=tree,
                      stdin="x = 1\n")
    assert (clean.returncode, json.loads(clean.stdout)) == (0, [])  # the buffer, not src/bad.py's text
    found = breaklint("check", "-", "--stdin-filename", "src/new_model.py", "--output-format", "json", cwd=tree,
                      stdin=BAD)
    assert found.returncode == 1, found.stderr
    assert [(r["path"], r["code"], r["start_line"]) for r in json.loads(found.stdout)] == [
        ("src/new_model.py", "BL101", 5)]
    assert breaklint("check", "--stdin-filename", "src/new_model.py", cwd=tree, stdin=BAD).returncode == 1
    unnamed = breaklint("check", "-", "--output-format", "concise", cwd=tree, stdin=BAD)
    assert unnamed.stdout.startswith("-:5:12: BL101 ")
    (tree / "generated").mkdir()
    skipped = breaklint("check", "-", "--stdin-filename", "generated/m.py", "--force-exclude", "--output-format",
                        "json", cwd=tree, stdin=BAD)
    assert (skipped.returncode, json.loads(skipped.stdout)) == (0, [])
    # Bytes that are not UTF-8: the same located BL002 as for the file on disk.
    (tree / "m.py").write_bytes(b"x = 1\ny = '\xff'\n")
    undecodable = breaklint("check", "-", "--stdin-filename", "m.py", "-q", "--output-format", "concise", cwd=tree,
                            stdin=(tree / "m.py").read_bytes())
    on_disk = breaklint("check", "m.py", "-q", "--output-format", "concise", cwd=tree)
    assert undecodable.returncode == on_disk.returncode == 1
    assert undecodable.stdout == on_disk.stdout and on_disk.stdout.startswith("m.py:2:6: BL002 error")
    mixed = breaklint("check", "-", "src", cwd=tree, stdin=BAD)
    assert mixed.returncode == 2 and "stdin" in mixed.stderr


def test_show_settings_is_the_table_in_effect(tree: Path) -> None:
    (tree / "pyproject.toml").write_text(
        "[tool.breaklint]\nignore = ['BL2']\nper-file-ignores = { 'tests/*' = ['BL1'] }\ntarget-torch = '2.11'\n",
        encoding="utf-8")
    shown = breaklint("check", "--show-settings", "--extend-select", "BL101", "--scope", "all", cwd=tree)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[0] == f"# {tree / 'pyproject.toml'}"
    table = tomllib.loads(shown.stdout)["tool"]["breaklint"]
    assert table["ignore"] == ["BL2"] and table["extend-select"] == ["BL101"] and table["scope"] == "all"
    assert table["per-file-ignores"] == {"tests/*": ["BL1"]} and table["target-torch"] == "2.11"
    assert ".git" in table["exclude"]  # the defaults in effect, not an empty list
    # What it prints is a settings file that gives the same settings.
    (tree / "shown.toml").write_text(shown.stdout.split("\n", 2)[2], encoding="utf-8")
    again = load_config(tree / "shown.toml", explicit=True)
    assert (again.ignore, again.extend_select, again.scope, dict(again.per_file_ignores)) == (
        ("BL2",), ("BL101",), "all", {"tests/*": ("BL1",)})


def test_show_files(tree: Path) -> None:
    (tree / "build").mkdir()
    (tree / "build" / "gen.py").write_text(BAD, encoding="utf-8")
    shown = breaklint("check", "--show-files", cwd=tree)
    assert (shown.returncode, shown.stdout) == (0, "note.py\nsrc/bad.py\n")


def test_extend_select_adds_to_select(tree: Path) -> None:
    assert breaklint("check", ".", "--select", "BL2", cwd=tree).returncode == 0
    both = breaklint("check", ".", "--select", "BL2", "--extend-select", "BL101", "--output-format", "json", cwd=tree)
    assert [r["code"] for r in json.loads(both.stdout)] == ["BL101"]
    (tree / "pyproject.toml").write_text("[tool.breaklint]\nselect = ['BL2']\nextend-select = ['BL1']\n",
                                         encoding="utf-8")
    configured = breaklint("check", ".", "--output-format", "json", "--fail-on", "info", cwd=tree)
    assert sorted(r["code"] for r in json.loads(configured.stdout)) == ["BL101", "BL106"]
    unknown = breaklint("check", ".", "--extend-select", "BL999", cwd=tree)
    assert unknown.returncode == 2 and "extend-select: unknown rule code or name 'BL999'" in unknown.stderr


def test_short_version_flag(tree: Path) -> None:
    for flag in ("-V", "--version"):
        shown = breaklint(flag, cwd=tree)
        assert (shown.returncode, shown.stdout) == (0, f"breaklint, version {__version__}\n")
