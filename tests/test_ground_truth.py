"""Ground truth: every rule's testdata runs through real Dynamo (see ground_truth_runner.py).

Positives (`# expect: BL1xx`) must graph-break at the marked line with one of the rule's GB
ids, and every break in a bad file must be a marked one; `# expect: BL2xx` lines must sit in a
function that recompiles. Negatives must neither break nor recompile.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from testdata import ROOT, expected_markers, rule_files

from breaklint.registry import find_rule

pytest.importorskip("torch")
RUNNER = Path(__file__).with_name("ground_truth_runner.py")


def run_through_dynamo(paths: list[Path], out: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONBREAKPOINT": "0", "PYTHONPATH": str(ROOT)}
    completed = subprocess.run(
        [sys.executable, str(RUNNER), str(out), *map(str, paths)],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def dynamo_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_through_dynamo(rule_files(), tmp_path_factory.mktemp("dynamo") / "result.json")


def function_spans(path: Path) -> list[tuple[int, int]]:
    """(first line incl. decorators, last line) of every function in the file."""
    spans = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            spans.append((first, node.end_lineno or node.lineno))
    return spans


def breaks_in(cases: dict[str, Any], path: Path) -> list[dict[str, Any]]:
    return [b for case in cases.values() for b in case["graph_breaks"]
            if Path(b["filename"]) == path and not b["frame_skipped"]]


def recompiled_lines(cases: dict[str, Any], path: Path) -> set[int]:
    """Every line inside a function of `path` that recompiled."""
    lines: set[int] = set()
    for case in cases.values():
        for recompile in case["recompiles"]:
            if Path(recompile["filename"]) != path:
                continue
            for first, last in function_spans(path):
                if first <= recompile["firstlineno"] <= last:
                    lines.update(range(first, last + 1))
    return lines


def check_positives(path: Path, cases: dict[str, Any]) -> None:
    breaks = breaks_in(cases, path)
    recompiled = recompiled_lines(cases, path)
    markers = expected_markers(path)
    for line, code in sorted(markers):
        rule = find_rule(code)
        assert rule is not None
        if code.startswith("BL1"):
            here = [b for b in breaks if b["lineno"] == line]
            assert here, f"{path.name}:{line} {code}: Dynamo did not break here; it broke at {[b['lineno'] for b in breaks]}"
            ids = {b["gb_id"] for b in here}
            assert ids & set(rule.gb_ids()), f"{path.name}:{line}: Dynamo said {ids}, {code} says {rule.gb_ids()}"
        elif code.startswith("BL2"):
            assert line in recompiled, f"{path.name}:{line} {code}: no recompile in this function"
    marked_break_lines = {line for line, code in markers if code.startswith("BL1")}
    unmarked = [(b["lineno"], b["gb_type"]) for b in breaks if b["lineno"] not in marked_break_lines]
    assert not unmarked, f"graph breaks the linter did not flag: {unmarked}"


@pytest.mark.parametrize("path", [p for p in rule_files() if p.name == "bad.py"], ids=lambda p: p.parent.name)
def test_positives_break_or_recompile_at_marked_lines(path: Path, dynamo_results) -> None:
    check_positives(path, dynamo_results[str(path)])


@pytest.mark.parametrize("path", [p for p in rule_files() if p.name == "good.py"], ids=lambda p: p.parent.name)
def test_negatives_neither_break_nor_recompile(path: Path, dynamo_results) -> None:
    cases = dynamo_results[str(path)]
    assert breaks_in(cases, path) == []
    assert not any(Path(r["filename"]) == path for case in cases.values() for r in case["recompiles"])


def test_harness_can_fail(tmp_path: Path) -> None:
    """A known break, a known recompile, and a missed break are all seen."""
    path = tmp_path / "bad.py"
    path.write_text(
        "import torch\n\nSTEP = [0]\n\n@torch.compile\ndef brk(x):\n    return x * x.sum().item()  # expect: BL101\n\n"
        "@torch.compile\ndef rec(x):\n    STEP[0] += 1\n    return x + STEP[0]\n\n"
        "@torch.compile\ndef missed(x):\n    return x * x.max().item()\n",
        encoding="utf-8",
    )
    cases = run_through_dynamo([path], tmp_path / "result.json")[str(path.resolve())]
    assert [b["lineno"] for b in breaks_in(cases, path)] == [7, 16]
    assert 11 in recompiled_lines(cases, path)
    with pytest.raises(AssertionError, match="did not flag"):
        check_positives(path, cases)
