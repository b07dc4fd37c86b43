"""confirm end to end on the CPU, for what a long run on real models needs: the usage it
measured, a process that dies in a later stage keeping the stages that finished, an overall
budget, results written as targets finish, and `--ladder` over an unchanged program (one that
compiles through `torch._dynamo.optimize` too, and its ladder drawn with `--plot`)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_confirm import confirm, write
from testdata import HANG_GUARD_S

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.dynamo

TARGETS = '''
import os

import torch

import breaklint


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(x).relu()


def die_when_compiled(x):
    y = x + 1
    if torch.compiler.is_compiling():
        os._exit(3)  # a break: it runs eagerly, after the graph, in the compiled stages only
    return y


@breaklint.example
def served():
    return breaklint.Example(Net().eval(), (torch.randn(4, 8),), probe=False)


@breaklint.example
def trained():
    net = Net()
    return breaklint.Example(net, (torch.randn(4, 8),), optimizer=lambda p: torch.optim.SGD(p, lr=0.1), probe=False)


@breaklint.example
def dies_in_dynamo():
    return breaklint.Example(die_when_compiled, (torch.randn(4, 8),), probe=False)
'''

PROGRAM = '''
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        if y.sum() > 0:
            y = y * 2
        return y


model = torch.compile(Net().eval(), mode="max-autotune")
with torch.no_grad():
    for _ in range(12):
        model(torch.randn(4, 8))
print("the program's own output")
'''


# The older spelling: torch._dynamo.optimize(backend)(model), and as a decorator.
OPTIMIZED = '''
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        if y.sum() > 0:
            y = y * 2
        return y


@torch._dynamo.optimize("aot_eager", nopython=True)
def scale(x):
    return x * 3


model = torch._dynamo.optimize("inductor")(Net().eval())
with torch.no_grad():
    for _ in range(6):
        model(torch.randn(4, 8))
        scale(torch.randn(4, 8))
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("run"), {"breaklint_examples.py": TARGETS, "program.py": PROGRAM,
                                                  "optimized.py": OPTIMIZED})


def test_the_ladder_says_what_it_measured(project: Path) -> None:
    code, data, stderr = confirm("breaklint_examples.py::served", "breaklint_examples.py::trained", "--stages",
                                 "eager,aot_eager", "--repeat", "2", "--warmup", "1", cwd=project)
    assert data is not None, stderr
    usage = {t["target"].split("::")[1]: t["usage"] for t in data["targets"]}
    assert usage == {"served": "inference under torch.no_grad()",
                     "trained": "training step: forward, loss, backward, SGD.step()"}
    for target in data["targets"]:
        assert [r["stage"] for r in target["ladder"]] == ["eager", "aot_eager"]
        assert all(r["median_ms"] > 0 and r["error"] is None for r in target["ladder"])


def test_a_process_that_dies_keeps_the_stages_that_finished(project: Path) -> None:
    """The worker writes its result after every stage: a crash (or a time-out, the same read)
    in the dynamo stage loses that stage only."""
    code, data, stderr = confirm("breaklint_examples.py::dies_in_dynamo", "--stages", "eager,dynamo",
                                 "--repeat", "1", "--warmup", "0", cwd=project)
    assert data is not None, stderr
    (target,) = data["targets"]
    assert target["failure"].startswith("the target's process exited with code 3")
    assert [r["stage"] for r in target["ladder"]] == ["eager"] and target["ladder"][0]["median_ms"] > 0
    assert code == 2


def test_the_budget_and_the_report_written_as_each_target_finishes(project: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    completed = subprocess.run(
        [sys.executable, "-m", "breaklint", "confirm", "breaklint_examples.py::served", "breaklint_examples.py::trained",
         "--stages", "eager", "--repeat", "1", "--budget", "0.001", "--format", "json", "-o", str(report)],
        cwd=project, capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert completed.returncode == 2, completed.stderr
    failures = [t["failure"] for t in json.loads(report.read_text(encoding="utf-8"))["targets"]]
    assert re.fullmatch(r"timed out after 0\.00\d* s.* \(what was left of the --budget\)", failures[0]), failures[0]
    assert failures[1] == "not run: the --budget of 0.001 s was spent"
    # Not a terminal: a line per finished target on stderr, nothing on stdout.
    assert completed.stdout == ""
    assert [line.split(":")[0] for line in completed.stderr.splitlines() if line.startswith("confirm [")] == \
        ["confirm [1/2] breaklint_examples.py", "confirm [2/2] breaklint_examples.py"]


def test_results_reach_the_report_target_by_target(project: Path) -> None:
    from breaklint.confirm.session import confirm_targets
    from breaklint.confirm.targets import discover_targets
    from conftest import run_check

    targets = [t for t in discover_targets(str(project / "breaklint_examples.py")) if t.name != "dies_in_dynamo"]
    seen: list[list[str]] = []
    confirm_targets(targets, run_check([project]), ["eager"], [project], HANG_GUARD_S, 1, 0, project,
                    on_done=lambda partial: seen.append([run.target.name for run in partial.runs]))
    assert seen == [["served"], ["served", "trained"]]


def test_ladder_runs_the_unchanged_program_once_per_stage(project: Path) -> None:
    code, data, stderr = confirm("--ladder", "--stages", "eager,dynamo,cudagraphs", "--", sys.executable, "program.py",
                                 cwd=project, timeout=HANG_GUARD_S)
    assert data is not None, stderr
    stages = {r["stage"]: r for r in data["program_ladder"]}
    assert list(stages) == ["eager", "dynamo", "cudagraphs"]
    assert stages["cudagraphs"]["skipped"] == "needs CUDA: the program saw no GPU"
    for name in ("eager", "dynamo"):
        row = stages[name]
        assert row["exit_code"] == 0 and row["calls"] == 12 and row["compiled_ms"] > 0
        assert list(row["callables"]) == ["Net (program.py:10)"]
    assert stages["eager"]["graphs"] == 0  # eager really is eager: the program's max-autotune was overridden
    assert stages["dynamo"]["graphs"] >= 1 and stages["dynamo"]["graph_breaks"] == 1
    assert stages["eager"]["speedup"] == pytest.approx(1.0)
    (branch,) = [f for f in data["findings"] if f["code"] == "BL102" and f["path"] == "program.py"]
    assert branch["status"] == "confirmed" and "GB0170" in branch["evidence"]
    assert "the program's own output" not in stderr  # captured: the ladder runs it several times


def test_ladder_needs_a_command_and_the_budget_a_positive_number(project: Path) -> None:
    assert confirm("--ladder", "breaklint_examples.py", cwd=project)[0] == 2
    assert confirm("--budget", "0", "breaklint_examples.py", cwd=project)[0] == 2


@pytest.fixture(scope="module")
def optimized_ladder(project: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[int, Any, str, Path]:
    picture = tmp_path_factory.mktemp("plot") / "ladder.png"
    code, data, stderr = confirm("--ladder", "--stages", "eager,dynamo", "--plot", str(picture), "--",
                                 sys.executable, "optimized.py", cwd=project, timeout=HANG_GUARD_S)
    return code, data, stderr, picture


def test_ladder_forces_torch_dynamo_optimize_as_torch_compile(optimized_ladder: tuple[int, Any, str, Path]) -> None:
    code, data, stderr, _ = optimized_ladder
    assert data is not None, stderr
    stages = {r["stage"]: r for r in data["program_ladder"]}
    for name in ("eager", "dynamo"):
        row = stages[name]
        assert row["exit_code"] == 0 and row["calls"] == 12, row  # both callables, timed once a call
        assert sorted(row["callables"]) == ["Net (optimized.py:10)", "scale (optimized.py:17)"]  # its decorator line
    # eager really is eager (the program asked for inductor and aot_eager); dynamo traced both,
    # and broke in Net.forward on the data-dependent branch.
    assert stages["eager"]["graphs"] == 0
    assert stages["dynamo"]["graphs"] >= 2 and stages["dynamo"]["graph_breaks"] == 1
    (branch,) = [f for f in data["findings"] if f["code"] == "BL102" and f["path"] == "optimized.py"]
    assert branch["status"] == "confirmed" and branch["start_line"] == 12


def test_ladder_plot_draws_the_program_ladder(optimized_ladder: tuple[int, Any, str, Path]) -> None:
    pytest.importorskip("matplotlib")
    code, data, stderr, picture = optimized_ladder
    assert data is not None and code in (0, 1), stderr
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
