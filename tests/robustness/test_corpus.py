"""Replays tests/robustness/corpus/: every input that once crashed breaklint (see its README)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .support import BAD, GOOD_FINDING, assert_no_crash, run_cli
from testdata import HANG_GUARD_S

CORPUS = Path(__file__).parent / "corpus"
CASES = sorted(p.name for p in CORPUS.glob("*.case"))


@pytest.mark.parametrize("name", CASES)
def test_corpus_entry(tmp_path: Path, name: str) -> None:
    data = (CORPUS / name).read_bytes()
    (tmp_path / "case.py").write_bytes(data)
    (tmp_path / "good.py").write_text(BAD, encoding="utf-8")
    run = run_cli(["check", "--no-cache", "--format", "json", "--scope", "all", "."], cwd=tmp_path, timeout=HANG_GUARD_S)
    assert_no_crash(run)
    records = run.records()
    assert (GOOD_FINDING[1], GOOD_FINDING[2], GOOD_FINDING[3]) in {
        (r["code"], r["start_line"], r["start_column"]) for r in records if r["path"] == "good.py"}
    lines = data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for r in (r for r in records if r["path"] == "case.py"):
        assert 1 <= r["start_line"] <= len(lines), r
        assert 1 <= r["start_column"] <= len(lines[r["start_line"] - 1]) + 1, r
    assert run.returncode == (2 if any(r["code"] == "BL005" for r in records) else 1)
