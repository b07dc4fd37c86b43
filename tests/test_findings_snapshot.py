"""The findings on `examples/`, every rule's testdata and every testdata project, as users see
them (the JSON report), against a committed snapshot taken before the engine was rewritten
("One engine"). A difference fails the test: an intended one is refreshed with
`BREAKLINT_UPDATE_SNAPSHOT=1 python -m pytest tests/test_findings_snapshot.py` and explained in
the commit that makes it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from testdata import PROJECTS, ROOT, TESTDATA

from breaklint.cli import cli

SNAPSHOT = Path(__file__).with_name("snapshots") / "findings.json"
KEPT = ("code", "path", "start_line", "start_column", "end_line", "end_column", "severity", "confidence",
        "message")


def units() -> list[Path]:
    """Each folder is checked on its own, as a user checks one project."""
    return [ROOT / "examples", *sorted(p for p in TESTDATA.iterdir() if p.is_dir()),
            *sorted(p for p in PROJECTS.iterdir() if p.is_dir())]


def findings_of(unit: Path, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(cli, ["check", str(unit.relative_to(ROOT)), "--format", "json", "--no-cache",
                                      "--jobs", "1", "--exit-zero"])
    assert result.exit_code == 0, result.output
    return [{key: finding[key] for key in KEPT} for finding in json.loads(result.output)]


def test_findings_match_the_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {str(unit.relative_to(ROOT)): findings_of(unit, monkeypatch) for unit in units()}
    if os.environ.get("BREAKLINT_UPDATE_SNAPSHOT"):
        SNAPSHOT.write_text(json.dumps(seen, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert sorted(seen) == sorted(expected), "the folders checked changed"
    for unit in expected:
        assert seen[unit] == expected[unit], f"findings in {unit} changed"
