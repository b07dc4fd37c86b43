"""Issue 6, item 5: a bad configuration is one clear error line naming the file and the key, exit
code 2, no traceback, no report — for malformed TOML, unknown keys, wrong types, bad globs, bad
entry points and unknown rule codes. (tests/test_config.py checks the messages of load_config;
this drives the command line.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from breaklint.cli import cli

from .support import BAD, run_cli

CASES = [
    # (pyproject body, the key named in the error, a phrase of the error)
    ("[tool.breaklint]\nselect = [\n", None, "invalid TOML"),
    ("[tool.breaklint]\nselect = 'BL1'\nselect = 'BL2'\n", None, "invalid TOML"),
    ("[tool]\nbreaklint = 3\n", None, "must be a table"),
    ("[tool.breaklint]\ncolour = 'red'\n", "colour", "unknown key"),
    ("[tool.breaklint]\nselect = 'BL1'\n", "select", "expected a list of strings"),
    ("[tool.breaklint]\nignore = [1, 2]\n", "ignore", "expected a list of strings"),
    ("[tool.breaklint]\nscope = 3\n", "scope", "expected"),
    ("[tool.breaklint]\nassume-forward-compiled = 'no'\n", "assume-forward-compiled", "true or false"),
    ("[tool.breaklint]\ntarget-torch = 2.13\n", "target-torch", "version string"),
    ("[tool.breaklint]\ntarget-torch = 'two'\n", "target-torch", "not a torch version"),
    ("[tool.breaklint]\nper-file-ignores = { 'a.py' = 'BL1' }\n", "per-file-ignores", "list of strings"),
    ("[tool.breaklint]\nper-file-ignores = ['a.py']\n", "per-file-ignores", "table"),
    ("[tool.breaklint]\nselect = ['BL999']\n", "select", "unknown rule code or name 'BL999'"),
    ("[tool.breaklint]\nignore = ['no-such-rule']\n", "ignore", "unknown rule code or name"),
    ("[tool.breaklint]\nselect = ['']\n", "select", "empty rule selector"),
    ("[tool.breaklint]\nper-file-ignores = { 'tests/*' = ['BLX'] }\n", "per-file-ignores", "unknown rule code"),
    # bad globs: each would silently match nothing
    ("[tool.breaklint]\nexclude = ['build', '']\n", "exclude", "bad glob ''"),
    ("[tool.breaklint]\nextend-exclude = ['/abs/legacy/*']\n", "extend-exclude", "absolute path"),
    ("[tool.breaklint]\nexclude = ['../sibling']\n", "exclude", "`..`"),
    ("[tool.breaklint]\nextend-exclude = ['gen/[abc*.py']\n", "extend-exclude", "unclosed `[`"),
    ("[tool.breaklint]\nper-file-ignores = { '[tests' = ['BL1'] }\n", "per-file-ignores", "unclosed `[`"),
    # entry points that cannot name anything
    ("[tool.breaklint]\nentry-points = ['train_step']\n", "entry-points", "MODULE:QUALNAME"),
    ("[tool.breaklint]\nentry-points = ['pkg.train:']\n", "entry-points", "MODULE:QUALNAME"),
    ("[tool.breaklint]\nentry-points = ['pkg train:step']\n", "entry-points", "MODULE:QUALNAME"),
    ("[tool.breaklint]\nentry-points = ['a:b:c']\n", "entry-points", "MODULE:QUALNAME"),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "good.py").write_text(BAD, encoding="utf-8")
    return tmp_path


def one_error_line(result, config: Path, key: str | None, phrase: str) -> None:  # type: ignore[no-untyped-def]
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.stdout == ""  # no report on a broken config
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("breaklint: error: ") and str(config) in lines[0] and phrase in lines[0], lines[0]
    if key is not None:
        assert key in lines[0]


@pytest.mark.parametrize("body,key,phrase", CASES)
def test_bad_pyproject(project: Path, body: str, key: str | None, phrase: str) -> None:
    config = project / "pyproject.toml"
    config.write_text(body, encoding="utf-8")
    one_error_line(CliRunner().invoke(cli, ["check", str(project)]), config, key, phrase)


def test_bad_explicit_config_files(project: Path) -> None:
    runner = CliRunner()
    latin = project / "latin.toml"
    latin.write_bytes(b"select = ['caf\xe9']\n")
    one_error_line(runner.invoke(cli, ["check", "--config", str(latin), str(project)]), latin, None, "not UTF-8")
    missing = project / "missing.toml"
    result = runner.invoke(cli, ["check", "--config", str(missing), str(project)])
    assert result.exit_code == 2 and "missing.toml" in result.stderr and result.stdout == ""
    table = project / "other.toml"
    table.write_text("[tool.other]\nx = 1\n", encoding="utf-8")
    one_error_line(runner.invoke(cli, ["check", "--config", str(table), str(project)]), table, "tool", "unknown key")


def test_bad_command_line_values(project: Path) -> None:
    runner = CliRunner()
    for args, phrase in ((["--select", "BL999"], "BL999"), (["--ignore", "nope"], "nope"),
                         (["--target-torch", "latest"], "not a torch version"), (["--jobs", "0"], "0")):
        result = runner.invoke(cli, ["check", *args, str(project)])
        assert result.exit_code == 2, (args, result.output)
        assert result.stdout == "" and phrase in result.stderr and "Traceback" not in result.stderr


def test_valid_globs_and_entry_points_still_load(project: Path) -> None:
    """The new checks reject only what can never match."""
    config = project / "pyproject.toml"
    config.write_text("[tool.breaklint]\nexclude = ['build', 'gen/[!_]*.py', 'a[[]b', '*.egg-info']\n"
                      "per-file-ignores = { 'tests/*' = ['BL1'], '[]]x.py' = ['BL2'] }\n"
                      "entry-points = ['good:f', 'tools/bench.py:Model.forward', 'pkg.train:train_step']\n",
                      encoding="utf-8")
    result = CliRunner().invoke(cli, ["check", "--no-cache", str(project)])
    assert result.exit_code == 1, result.output
    assert "BL101" in result.stdout


# Issue 18, item 4: what a parent folder's pyproject.toml may hold. Each was a TypeError,
# AttributeError or RecursionError traceback and exit 1, or was accepted without a word.
DEEP = "[" * 3000 + "]" * 3000
HOSTILE_PARENT = [
    ("tool = 1\n", "tool", "must be a table"),
    ("tool = 'breaklint'\n", "tool", "must be a table"),
    ("tool = ['breaklint']\n", "tool", "must be a table"),
    (f"x = {DEEP}\n", None, "nested too deeply"),
    (f"[tool.breaklint]\nselect = {DEEP}\n", None, "nested too deeply"),
    (f"[tool.breaklint]\nselect = {'[' * 200}1{']' * 200}\n", "select", "expected a list of strings"),
    ("[tool.breaklint]\ntarget-python = '3.0'\n", "target-python", "not one torch.compile runs on (3.8 to 3.14)"),
    ("[tool.breaklint]\ntarget-python = '3.99'\n", "target-python", "not one torch.compile runs on"),
    ("[tool.breaklint]\ntarget-python = '3.\u0661\u0662'\n", "target-python", "not a Python version"),
    ("[tool.breaklint]\ntarget-torch = '99.99'\n", "target-torch", "not a version breaklint knows"),
    ("[tool.breaklint]\ntarget-torch = '1.13'\n", "target-torch", "not a version breaklint knows"),
    ("[tool.breaklint]\ntarget-torch = '2.\u0661\u0662'\n", "target-torch", "not a torch version"),
]


@pytest.mark.parametrize("body,key,phrase", HOSTILE_PARENT)
def test_hostile_parent_pyproject(project: Path, body: str, key: str | None, phrase: str) -> None:
    config = project / "pyproject.toml"
    config.write_text(body, encoding="utf-8")
    sub = project / "sub"
    sub.mkdir()
    (sub / "good.py").write_text(BAD, encoding="utf-8")
    result = CliRunner().invoke(cli, ["check", "--no-cache", str(sub)])
    one_error_line(result, config, key, phrase)
    assert len(result.stderr) < 400  # the value is abridged, not printed whole


def test_versions_on_the_command_line_are_checked_too(project: Path) -> None:
    runner = CliRunner()
    for args, phrase in ((["--target-torch", "99.99"], "not a version breaklint knows"),
                         (["--target-python", "3.99"], "not one torch.compile runs on"),
                         (["--target-python", "3.\u0661\u0662"], "not a Python version")):
        result = runner.invoke(cli, ["check", "--no-cache", *args, str(project)])
        assert result.exit_code == 2 and result.stdout == "" and phrase in result.stderr, (args, result.output)
    ends = ["--target-torch", "2.0", "--target-python", "3.8"]
    result = runner.invoke(cli, ["check", "--no-cache", *ends, str(project)])
    assert result.exit_code == 1, result.output  # the ends of the range are versions too


@pytest.mark.parametrize("kind", ["fifo", "device", "large"])
def test_a_config_that_is_not_a_settings_file(project: Path, kind: str) -> None:
    """`--config` naming a FIFO once waited forever; /dev/zero was read until memory ran out."""
    config = project / "settings.toml"
    if kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        os.mkfifo(config)
    elif kind == "device":
        if not Path("/dev/zero").exists():
            pytest.skip("no /dev/zero here")
        config.symlink_to("/dev/zero")
    else:
        config.write_text("select = ['BL1']\n" + "# padding\n" * 200_000, encoding="utf-8")
    run = run_cli(["check", "--no-cache", "--config", str(config), "."], cwd=project)
    assert run.returncode == 2 and run.stdout == "", run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert "not a regular file" in run.stderr if kind != "large" else "larger than 1 MiB" in run.stderr
