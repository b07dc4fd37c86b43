"""`breaklint confirm` end to end on the CPU: real torch, real subprocesses, real files."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from breaklint.confirm.targets import TargetError, discover_targets
from testdata import HANG_GUARD_S

pytestmark = pytest.mark.dynamo  # runs the real compiler (deselect with -m 'not dynamo')

torch = pytest.importorskip("torch")

MODELS = '''
import torch


def scaled(x):
    return x * x.sum().item()


def in_loop(x):
    total = x.sum() * 0
    for i in range(3):
        total = total + x[i].sum().item()
    return x + total


def early_break(x):
    torch._dynamo.graph_break()
    return x + 1


def unreached(x, debug=False):
    if debug:
        return x * x.max().item()
    return x + 1


def clean(x):
    return torch.relu(x) * 2
'''

EXAMPLES = '''
import torch

import breaklint
import models


@breaklint.example
def scaled():
    return breaklint.Example(models.scaled, (torch.randn(8, 4),))


@breaklint.example
def in_loop():
    return breaklint.Example(models.in_loop, (torch.randn(8, 4),))


@breaklint.example
def early_break():
    return breaklint.Example(models.early_break, (torch.randn(8, 4),))


@breaklint.example
def unreached():
    return breaklint.Example(models.unreached, (torch.randn(8, 4),))


@breaklint.example
def clean():
    return breaklint.Example(models.clean, (torch.randn(8, 4),), probe_args=(torch.randn(3, 4),))
'''

FAILING = '''
import os
import time

import breaklint


@breaklint.example
def raises():
    raise ValueError("no weights here")


@breaklint.example
def hangs():
    time.sleep(600)


@breaklint.example
def dies():
    os._exit(3)
'''


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def confirm(*args: str, cwd: Path, timeout: float = HANG_GUARD_S) -> tuple[int, Any, str]:
    completed = subprocess.run(
        [sys.executable, "-m", "breaklint", "confirm", "--format", "json", *args],
        cwd=cwd, capture_output=True, text=True, timeout=timeout,
    )
    data = json.loads(completed.stdout) if completed.stdout.strip().startswith("{") else None
    return completed.returncode, data, completed.stderr


def tree_listing(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # The static pass should see every function as compiled: give it an entry point per model.
    root = write(tmp_path_factory.mktemp("proj"), {"models.py": MODELS, "breaklint_examples.py": EXAMPLES})
    (root / "pyproject.toml").write_text(
        "[tool.breaklint]\nentry-points = [" + ", ".join(
            f'"models:{n}"' for n in ("scaled", "in_loop", "early_break", "unreached", "clean")) + "]\n",
        encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def confirmed(project: Path) -> tuple[int, Any, set[str], set[str]]:
    before = tree_listing(project)
    code, data, stderr = confirm(".", "--stages", "eager,dynamo,aot_eager,cudagraphs", "--repeat", "3",
                                 "--warmup", "1", cwd=project)
    assert data is not None, stderr
    return code, data, before, tree_listing(project)


def by_line(data: Any) -> dict[int, dict[str, Any]]:
    return {f["start_line"]: f for f in data["findings"] if f["path"] == "models.py"}


def test_discovery(project: Path, tmp_path: Path) -> None:
    names = [t.name for t in discover_targets(str(project))]
    assert names == ["scaled", "in_loop", "early_break", "unreached", "clean"]
    assert [t.name for t in discover_targets(f"{project}/breaklint_examples.py::clean")] == ["clean"]
    (tmp_path / "mine.py").write_text(
        "from breaklint import example as ex\nimport breaklint as bl\n\n@ex\ndef a():\n    pass\n\n"
        "@bl.example\ndef b():\n    pass\n\ndef c():\n    pass\n", encoding="utf-8")
    assert [t.name for t in discover_targets(str(tmp_path / "mine.py"))] == ["a", "b"]
    with pytest.raises(TargetError, match="no example provider named 'nope'"):
        discover_targets(f"{tmp_path / 'mine.py'}::nope")


def test_findings_are_confirmed_with_dynamos_words(confirmed) -> None:
    code, data, _, _ = confirmed
    assert code == 1
    lines = by_line(data)
    assert lines[6]["code"] == "BL101" and lines[6]["status"] == "confirmed"
    assert "GB0124" in lines[6]["evidence"]


def test_catches_what_explain_misses(confirmed) -> None:
    """A break inside a loop (Dynamo skips the whole frame) and one before the first op."""
    _, data, _, _ = confirmed
    lines = by_line(data)
    assert lines[12]["status"] == "confirmed"  # .item() in the loop
    assert lines[17]["code"] == "BL105" and lines[17]["status"] == "confirmed"  # graph_break() first
    assert "GB0025" in lines[17]["evidence"]
    # explain() sees neither break: the evidence that confirm's own channel matters.
    import importlib.util

    spec = importlib.util.spec_from_file_location("models_for_explain", Path(data["targets"][0]["path"]).parent / "models.py")
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)
    for fn in (models.in_loop, models.early_break):
        torch._dynamo.reset()
        assert torch._dynamo.explain(fn)(torch.randn(8, 4)).graph_break_count <= 0


def test_not_reached_and_not_reproduced(confirmed) -> None:
    _, data, _, _ = confirmed
    assert by_line(data)[23]["status"] == "not reached"  # the debug branch never ran


def test_ladder(confirmed) -> None:
    _, data, _, _ = confirmed
    clean = next(t for t in data["targets"] if t["target"].endswith("::clean"))
    stages = {row["stage"]: row for row in clean["ladder"]}
    assert list(stages) == ["eager", "dynamo", "aot_eager", "cudagraphs"]
    for name in ("eager", "dynamo", "aot_eager"):
        assert stages[name]["median_ms"] > 0
    assert stages["dynamo"]["graphs"] == 1 and stages["dynamo"]["graph_breaks"] == 0
    assert stages["eager"]["speedup"] == pytest.approx(1.0)
    assert stages["cudagraphs"]["skipped"].startswith("needs CUDA")
    scaled = next(t for t in data["targets"] if t["target"].endswith("::scaled"))
    assert {r["stage"]: r for r in scaled["ladder"]}["dynamo"]["graph_breaks"] == 1


def test_recompile_probe_is_reported(confirmed) -> None:
    _, data, _, _ = confirmed
    clean = next(t for t in data["targets"] if t["target"].endswith("::clean"))
    assert {r["stage"]: r for r in clean["ladder"]}["dynamo"]["probe_recompiles"] == 1
    probes = [f for f in data["runtime_only"] if f["code"] == "BL290" and "recompile probe" in f["message"]]
    assert any("size mismatch" in f["message"] for f in probes)


def test_nothing_written_in_the_users_tree(confirmed) -> None:
    _, _, before, after = confirmed
    assert after == before


def test_runtime_only_when_no_rule_predicted(project: Path) -> None:
    code, data, stderr = confirm("breaklint_examples.py::scaled", "--stages", "dynamo", "--repeat", "1",
                                 "--check", "models.py", cwd=project)
    assert data is not None, stderr
    # With BL1 rules on, the break is confirmed; with them off, it is runtime-only.
    (project / "alt.toml").write_text('select = ["BL2"]\n', encoding="utf-8")
    code, data, stderr = confirm("breaklint_examples.py::scaled", "--stages", "dynamo", "--repeat", "1",
                                 "--config", "alt.toml", cwd=project)
    (project / "alt.toml").unlink()
    assert data["findings"] == []
    breaks = [f for f in data["runtime_only"] if f["code"] == "BL190"]
    assert [(f["path"], f["start_line"], f["gb_ids"]) for f in breaks] == [("models.py", 6, ["GB0124"])]
    assert code == 1


def test_failures_are_contained(tmp_path: Path) -> None:
    root = write(tmp_path, {"breaklint_examples.py": FAILING})
    # Two runs, so that no outcome depends on how fast the machine is: the target that never
    # returns times out whatever the limit, the others must not meet theirs.
    guard = str(int(HANG_GUARD_S))
    code, data, stderr = confirm("breaklint_examples.py::raises", "breaklint_examples.py::dies", "--stages", "eager",
                                 "--timeout", guard, cwd=root, timeout=3 * HANG_GUARD_S)
    assert code == 2, stderr
    failures = {t["target"].split("::")[1]: t["failure"] for t in data["targets"]}
    assert "ValueError" in failures["raises"] and "no weights here" in failures["raises"]
    assert "exited with code 3" in failures["dies"]
    assert sorted(f["code"] for f in data["runtime_only"]) == ["BL006"] * 2
    code, data, stderr = confirm("breaklint_examples.py::hangs", "--stages", "eager", "--timeout", "5", cwd=root)
    assert code == 2, stderr
    assert [t["failure"] for t in data["targets"]] == ["timed out after 5 s while building the example"]
    assert [f["code"] for f in data["runtime_only"]] == ["BL006"]


def test_observe_mode_wraps_python_and_pytest(project: Path, tmp_path: Path) -> None:
    script = project / "run_models.py"
    script.write_text("import torch\nimport models\n\ntorch.compile(models.scaled, backend='eager')(torch.randn(4, 4))\n"
                      "print('ran')\n", encoding="utf-8")
    code, data, stderr = confirm("--", sys.executable, "run_models.py", cwd=project)
    script.unlink()
    assert data is not None, stderr
    assert data["command_exit_code"] == 0
    assert by_line(data)[6]["status"] == "confirmed"
    assert by_line(data)[12]["status"] == "not reached"  # in_loop was never compiled
    test_file = project / "test_models_observed.py"
    test_file.write_text("import torch\nimport models\n\ndef test_early():\n"
                         "    torch.compile(models.early_break, backend='eager')(torch.randn(2))\n", encoding="utf-8")
    code, data, stderr = confirm("--", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                 "test_models_observed.py", cwd=project)
    test_file.unlink()
    assert data is not None, stderr
    assert by_line(data)[17]["status"] == "confirmed"


def test_inductor_on_cpu_counts_cpp_kernels(project: Path) -> None:
    code, data, stderr = confirm("breaklint_examples.py::clean", "--stages", "eager,inductor", "--repeat", "3",
                                 cwd=project, timeout=HANG_GUARD_S)
    assert data is not None, stderr
    row = {r["stage"]: r for r in data["targets"][0]["ladder"]}["inductor"]
    assert row["error"] is None, row
    assert row["kernels"]["cpp"] >= 1 and row["median_ms"] > 0


def test_plot(project: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    picture = tmp_path / "ladder.png"
    completed = subprocess.run(
        [sys.executable, "-m", "breaklint", "confirm", "breaklint_examples.py::clean", "--stages", "eager,dynamo",
         "--repeat", "2", "--plot", str(picture)], cwd=project, capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert completed.returncode == 0, completed.stderr
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "dynamo (capture)" in completed.stdout and "vs eager" in completed.stdout


def test_recompile_confirmed_through_the_probe() -> None:
    """BL210 (dynamic=False) predicts a recompile per new shape; the probe's other batch size
    makes it happen, and the join confirms the finding with the probe's guard failure."""
    root = Path(__file__).resolve().parent.parent
    code, data, stderr = confirm("testdata/confirm_targets/breaklint_examples.py::static_shapes",
                                 "--check", "testdata/rules/BL210", "--stages", "dynamo", "--repeat", "2", cwd=root)
    assert data is not None, stderr
    decorator, *call_forms = sorted((f for f in data["findings"] if f["path"] == "testdata/rules/BL210/bad.py"),
                                    key=lambda f: f["start_line"])
    assert decorator["code"] == "BL210" and decorator["status"] == "confirmed"
    # The call forms sit in scenarios the target does not run: not reached, not refuted.
    assert len(call_forms) == 2 and all(f["code"] == "BL210" and f["status"] == "not reached" for f in call_forms)
    finding = decorator
    assert "recompile probe" in finding["evidence"] and "size mismatch" in finding["evidence"]
    assert code == 1
