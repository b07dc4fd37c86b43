"""No silent regression: the work a check does on a fixed corpus (examples/ and the rules'
testdata, one job, no cache) is counted — files and characters parsed by libcst, rule passes,
other files' trees built for a rule, cross-file reads, expressions parsed from the index (by
libcst, and by the `ast` for a spine: infra/lazy.py), the
regions' entry points and the modules they built (the memory of the regions' process on a large
tree grows with them: transformers' 576 -> 634 MB went unnoticed for two sessions) — and
a count that grows fails. A count, not a clock. When a change makes less work, refresh the
numbers with `BREAKLINT_UPDATE_WORK=1 python -m pytest tests/test_work_counts.py`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from testdata import ROOT, TESTDATA

from breaklint.check.engine import Engine
from breaklint.check.registry import RuleSet
from breaklint.config import Config

COUNTS = Path(__file__).with_name("snapshots") / "work.json"


def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, int]]:
    monkeypatch.chdir(ROOT)
    found = {}
    for corpus in (ROOT / "examples", TESTDATA):
        config = Config(root=ROOT)
        result = Engine(config, RuleSet(config), jobs=1).check([corpus])
        assert result.findings and result.work["libcst_files"] > 0
        found[corpus.relative_to(ROOT).as_posix()] = dict(result.work)
    return found


def test_the_work_of_a_check_does_not_grow(monkeypatch: pytest.MonkeyPatch) -> None:
    found = counted(monkeypatch)
    if os.environ.get("BREAKLINT_UPDATE_WORK"):
        COUNTS.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    expected = json.loads(COUNTS.read_text(encoding="utf-8"))
    assert sorted(found) == sorted(expected)
    grown = {(corpus, what): (expected[corpus].get(what, 0), count)
             for corpus, counts in found.items() for what, count in counts.items()
             if count > expected[corpus].get(what, 0)}
    assert not grown, f"more work than recorded (was, now): {grown}"


def test_a_file_outside_every_region_never_reaches_libcst(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The counts see what they claim: two files, one compiled: one libcst parse."""
    (tmp_path / "compiled.py").write_text("import torch\n\n@torch.compile\ndef f(x):\n    return x.item()\n")
    (tmp_path / "plain.py").write_text("def g(x):\n    return x.item()\n" * 50)
    monkeypatch.chdir(tmp_path)
    config = Config(root=tmp_path)
    work = Engine(config, RuleSet(config), jobs=1).check([tmp_path]).work
    assert (work["libcst_files"], work["rule_passes"]) == (1, 1)
    # ... of the compiled function: its import, outside the region, is blanked (region_text.py)
    assert work["libcst_chars"] == len("pass\n\n@torch.compile\ndef f(x):\n    return x.item()\n")
