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


def _event(path: Path, line: int, gb_id: str, skipped: bool, rest_skipped: bool = False) -> dict:
    return {"filename": str(path), "lineno": line, "gb_id": gb_id, "gb_type": gb_id, "frame_skipped": skipped,
            "rest_skipped": rest_skipped}


def test_a_loop_break_is_a_site_and_hides_the_rest_of_its_function(tmp_path: Path) -> None:
    source = tmp_path / "a.py"
    source.write_text("def f(xs):\n    for x in xs:\n        if x:\n            pass\n        if x > 1:\n"
                      "            pass\n    return xs\n\n\ndef g(y):\n    if y:\n        pass\n", encoding="utf-8")
    where = os.path.realpath(source)
    # A case that resumed elsewhere (line 11) and broke in f's loop (line 3), skipping f's frame.
    cases = {"c": {"graph_breaks": [_event(source, 11, "GB0170", False), _event(source, 3, "GB0170", True),
                                    _event(source, 3, "GB7000", True)]}}
    inside = lambda f: True  # noqa: E731
    sites = run.runtime_sites(cases, inside)
    assert sorted(sites) == [(where, 3), (where, 11)]
    hidden = run.untraced_after_breaks(cases, inside)
    assert hidden == {where: [(4, 7)]}
    findings = [_finding(3, "BL102", "certain"), _finding(5, "BL102", "certain"), _finding(12, "BL102", "certain")]
    scored = run.score(findings, sites, tmp_path, hidden)
    assert (scored["findings"], scored["true_positives"]) == (2, 1)  # line 5 is neither hit nor false alarm
    assert [u["where"] for u in scored["unobserved"]] == ["a.py:5"]
    assert [a["where"] for a in scored["false_alarms"]] == ["a.py:12"]  # g was traced: a real false alarm
    assert [m["where"] for m in scored["misses"]] == ["a.py:11"]


def test_a_skip_after_a_resumed_break_outside_a_loop_is_not_a_site(tmp_path: Path) -> None:
    cases = {"c": {"graph_breaks": [_event(tmp_path / "a.py", 2, "GB0015", False),
                                    _event(tmp_path / "a.py", 4, "GB0015", True)]}}
    assert sorted(line for _, line in run.runtime_sites(cases, lambda f: True)) == [2]



def test_an_rnn_skip_is_a_site_even_after_a_resumed_break(tmp_path: Path) -> None:
    # torch_geometric's ChebConv+Set2Set: breaks resumed in the convolutions, then Set2Set's LSTM
    # skipped its frame (GB0014): the LSTM is what broke there, not a consequence.
    source = tmp_path / "a.py"
    source.write_text("def f(x):\n    y = lstm(x)\n    z = y + 1\n    return z\n", encoding="utf-8")
    cases = {"c": {"graph_breaks": [_event(tmp_path / "b.py", 9, "GB0036", False), _event(source, 2, "GB0014", True)]}}
    sites = run.runtime_sites(cases, lambda f: True)
    assert (os.path.realpath(source), 2) in sites
    assert run.untraced_after_breaks(cases, lambda f: True) == {os.path.realpath(source): [(3, 4)]}

def test_a_break_dynamo_cannot_resume_from_hides_the_rest_of_its_function(tmp_path: Path) -> None:
    # timm's LSTM2d: Dynamo compiles up to the first LSTM (GB0014, "cannot resume from") and runs
    # the rest of forward eagerly, so the second LSTM (line 3) is never traced; h (line 6) is.
    source = tmp_path / "a.py"
    source.write_text("def f(x):\n    v = rnn(x)\n    h = rnn(x)\n    return v, h\n\n\ndef h(x):\n"
                      "    return rnn(x)\n", encoding="utf-8")
    where = os.path.realpath(source)
    cases = {"c": {"graph_breaks": [_event(source, 2, "GB0014", False, rest_skipped=True),
                                    _event(source, 8, "GB0014", False)]}}
    inside = lambda f: True  # noqa: E731
    sites = run.runtime_sites(cases, inside)
    assert sorted(sites) == [(where, 2), (where, 8)]  # resumed or not, each is a site
    hidden = run.untraced_after_breaks(cases, inside)
    assert hidden == {where: [(3, 4)]}
    scored = run.score([_finding(line, "BL111", "certain") for line in (2, 3, 8)], sites, tmp_path, hidden)
    assert (scored["findings"], scored["true_positives"], scored["false_alarms"]) == (2, 2, [])
    assert [u["where"] for u in scored["unobserved"]] == ["a.py:3"]
