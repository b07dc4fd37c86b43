"""No test depends on wall time (speed targets live in benchmarks/): every wait is bounded by
testdata.HANG_GUARD_S, a guard against hangs that no outcome depends on, and no test reads a
clock except to implement such a bounded wait."""

from __future__ import annotations

import ast
from pathlib import Path

from testdata import ROOT

TESTS = ROOT / "tests"
# Files that read a clock to implement a wait bounded by HANG_GUARD_S (a deadline loop).
DEADLINE_LOOPS = {"robustness/lsp_client.py", "robustness/test_lsp_robustness.py", "robustness/test_orphan_workers.py"}
CLOCKS = {"time", "monotonic", "perf_counter", "perf_counter_ns", "monotonic_ns", "time_ns", "process_time"}


def _test_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "corpus" not in p.relative_to(TESTS).parts)


def _numeric(node: ast.AST | None) -> bool:
    """A number written in the test (`6`, `2 * 60`), rather than the named guard."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp):
        return _numeric(node.left) and _numeric(node.right)
    return False


def problems(source: str, name: str) -> list[str]:
    """What in a test file's `source` (`name`: its path under tests/) depends on wall time."""
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "timeout" and _numeric(node.value):
            found.append(f"{name}:{node.value.lineno}: timeout= a number; use HANG_GUARD_S")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = [*node.args.posonlyargs, *node.args.args]
            defaults = dict(zip([a.arg for a in args][len(args) - len(node.args.defaults):], node.args.defaults))
            defaults.update({a.arg: d for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults)})
            for arg, default in defaults.items():
                if ("timeout" in arg or arg == "seconds") and _numeric(default):
                    found.append(f"{name}:{node.lineno}: {arg} defaults to a number; use HANG_GUARD_S")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CLOCKS
              and isinstance(node.func.value, ast.Name) and node.func.value.id == "time"
              and name not in DEADLINE_LOOPS):
            found.append(f"{name}:{node.lineno}: reads a clock (time.{node.func.attr})")
    return sorted(found, key=lambda problem: int(problem.split(":")[1]))


def test_no_test_depends_on_wall_time() -> None:
    found = [problem for path in _test_files()
             for problem in problems(path.read_text(encoding="utf-8"), path.relative_to(TESTS).as_posix())]
    assert found == []


def test_the_check_finds_what_it_should() -> None:
    """Not vacuous: the 6 s limit that failed on a busy machine, a default and a clock are found."""
    source = ("import subprocess, time\n\ndef wait(seconds: float = 15):\n    started = time.perf_counter()\n"
              "    subprocess.run(['true'], timeout=2 * 3)\n    assert time.perf_counter() - started < seconds\n")
    assert problems(source, "probe.py") == [
        "probe.py:3: seconds defaults to a number; use HANG_GUARD_S",
        "probe.py:4: reads a clock (time.perf_counter)",
        "probe.py:5: timeout= a number; use HANG_GUARD_S",
        "probe.py:6: reads a clock (time.perf_counter)",
    ]
    assert problems("import subprocess\nsubprocess.run(['true'], timeout=HANG_GUARD_S)\n", "ok.py") == []
