"""How benchmarks/accuracy/run.py counts: predictions, notes, misses (no torch, no corpus needed)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from testdata import ROOT

sys.path.insert(0, str(ROOT / "benchmarks" / "accuracy"))

import run  # noqa: E402


def _finding(line: int, code: str, confidence: str) -> dict:
    return {"code": code, "path": "a.py", "start_line": line, "confidence": confidence, "message": f"{code} at {line}"}


def test_possible_notes_are_neither_predictions_nor_hits(tmp_path: Path) -> None:
    where = os.path.realpath(tmp_path / "a.py")
    findings = [_finding(3, "BL101", "likely"), _finding(5, "BL106", "possible"), _finding(7, "BL106", "possible"),
                _finding(9, "BL102", "certain"), _finding(11, "BL201", "certain")]  # BL2xx: not a break rule
    sites = {(where, 3): {"item (GB0124)"}, (where, 5): {"warn (GB0007)"}, (where, 13): {"print (GB0059)"}}
    scored = run.score(findings, sites, tmp_path)
    assert (scored["findings"], scored["true_positives"], scored["runtime_sites"]) == (2, 1, 3)
    assert scored["precision"] == 0.5 and scored["recall"] == 1 / 3
    assert [a["where"] for a in scored["false_alarms"]] == ["a.py:9"]
    assert [m["where"] for m in scored["misses"]] == ["a.py:5", "a.py:13"]  # a site only a note covers is a miss
    assert [(n["where"], n["broke"]) for n in scored["possible"]] == [("a.py:5", True), ("a.py:7", False)]
    assert (scored["notes"], scored["notes_that_broke"]) == (2, 1)


def test_every_listed_corpus_item_in_the_committed_table_has_a_cause() -> None:
    import json

    report = json.loads((ROOT / "benchmarks" / "results" / "accuracy.json").read_text(encoding="utf-8"))
    for name in ("corpus", "testdata"):
        causes = {**run.CAUSES, **report[name].get("causes", {})}
        for kind in ("false_alarms", "misses", "possible"):
            for item in report[name][kind]:
                assert item["where"] in causes, (name, kind, item["where"])
    assert "not reviewed yet" not in (ROOT / "benchmarks" / "results" / "accuracy.md").read_text(encoding="utf-8")


def test_testdata_causes_come_from_the_markers(tmp_path: Path) -> None:
    path = ROOT / "testdata" / "projects" / "detection" / "tinydet" / "hooks.py"
    causes = run.testdata_causes([path])
    [(where, cause)] = causes.items()
    assert where.startswith("testdata/projects/detection/tinydet/hooks.py:") and cause.startswith("known miss (BL108)")
