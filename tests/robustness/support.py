"""Helpers shared by the robustness tests: run the CLI, check in-process, judge positions."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from breaklint.cli import exit_code
from breaklint.config import Config
from breaklint.check.engine import CheckResult, Engine
from breaklint.finding import Finding
from breaklint.check.registry import RuleSet
from testdata import HANG_GUARD_S

REPO = Path(__file__).resolve().parents[2]
# A file with one known finding: BL101 at 5:12. Every bad-input test keeps it beside the bad
# file and asserts it is still reported.
BAD = "import torch\n\n@torch.compile\ndef f(x):\n    return x.sum().item()\n"
GOOD_FINDING = ("good.py", "BL101", 5, 12)


def breaklint_command() -> list[str]:
    """The installed console script (what users and editors run), else `python -m breaklint`."""
    script = Path(sys.executable).with_name("breaklint")
    found = str(script) if script.exists() else shutil.which("breaklint")
    return [found] if found else [sys.executable, "-m", "breaklint"]


@dataclass(frozen=True)
class CliRun:
    returncode: int
    stdout: str
    stderr: str

    def records(self) -> list[dict[str, Any]]:
        return json.loads(self.stdout)

    def found(self) -> set[tuple[str, str, int, int]]:
        return {(r["path"], r["code"], r["start_line"], r["start_column"]) for r in self.records()}


def run_cli(args: list[str], cwd: Path, timeout: float = HANG_GUARD_S, **popen: Any) -> CliRun:
    """`breaklint ARGS` in `cwd`. A crash (a signal, or a traceback) is reported by the caller's
    assertions on the exit code and stderr; a hang by the timeout."""
    completed = subprocess.run([*breaklint_command(), *args], cwd=cwd, capture_output=True, text=True,
                               timeout=timeout, stdin=subprocess.DEVNULL, **popen)
    return CliRun(completed.returncode, completed.stdout, completed.stderr)


def assert_no_crash(run: CliRun) -> None:
    assert run.returncode in (0, 1, 2), f"died with {run.returncode}: {run.stderr[-2000:]}"
    assert "Traceback" not in run.stderr, run.stderr[-3000:]


@contextlib.contextmanager
def chdir(path: Path) -> Iterator[None]:
    """Like monkeypatch.chdir, for hypothesis tests (one directory per example)."""
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def check(paths: list[Path], root: Path, jobs: int = 1, **settings: Any) -> CheckResult:
    """The engine in this process, no cache; paths print relative to the working directory."""
    config = Config(root=root, **settings)
    return Engine(config, RuleSet(config), jobs=jobs).check(paths)


def exit_status(result: CheckResult) -> int:
    return exit_code(result, exit_zero=False)


def by_path(findings: list[Finding]) -> dict[str, list[tuple[str, int, int]]]:
    found: dict[str, list[tuple[str, int, int]]] = {}
    for f in findings:
        found.setdefault(f.path, []).append((f.code, f.span.start_line, f.span.start_col))
    return found


def stable_view(findings: list[Finding]) -> list[tuple[Any, ...]]:
    """Everything a user sees of a finding (the traceback in `details` aside)."""
    return [(f.path, f.span, f.code, f.message, f.severity, f.confidence, f.region, f.gb_ids) for f in findings]


_NEWLINE = re.compile(rb"\r\n|\r|\n")


def position_problems(findings: list[Finding], files: dict[str, bytes]) -> list[str]:
    """Findings whose span is not inside their file: lines 1..n (Python's newlines: \\r\\n, \\r,
    \\n), columns 1..len(line)+1, the end not before the start. Columns are counted in bytes as
    an upper bound for code points (BL002 points at a byte)."""
    problems = []
    for f in findings:
        data = files.get(f.path)
        if data is None:
            # A path that could not be read (a loop, a FIFO) has no text: BL003 points at 1:1.
            if not (f.code == "BL003" and (f.span.start_line, f.span.start_col) == (1, 1)):
                problems.append(f"{f.code} for a file that was not checked: {f.path}")
            continue
        universal = _NEWLINE.split(data)
        plain = data.split(b"\n")
        s = f.span

        def inside(line: int, col: int) -> bool:
            if not 1 <= line <= len(universal):
                return False
            width = max(len(universal[line - 1]), len(plain[line - 1]) if line <= len(plain) else 0)
            return 1 <= col <= width + 1

        if not (inside(s.start_line, s.start_col) and inside(s.end_line, s.end_col)
                and (s.end_line, s.end_col) >= (s.start_line, s.start_col)):
            problems.append(f"{f.path}:{s} {f.code} {f.message[:120]}")
    return problems
