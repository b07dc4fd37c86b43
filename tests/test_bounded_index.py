"""A process drops the modules it built from summaries between files once it holds more than
`_KEPT_MODULES` (engine._Run.release_index): memory that does not grow with the files it checks.
Dropping them after every file must give the same findings as keeping them all."""

from __future__ import annotations

import pytest
from testdata import ROOT, TESTDATA

from breaklint.check import engine as engine_module
from breaklint.check.engine import Engine
from breaklint.check.registry import RuleSet
from breaklint.config import Config


def findings(monkeypatch: pytest.MonkeyPatch, kept: int) -> tuple[list[tuple[str, int, str, str]], dict[str, int]]:
    monkeypatch.setattr(engine_module, "_KEPT_MODULES", kept)
    monkeypatch.chdir(ROOT)
    config = Config(root=ROOT)
    result = Engine(config, RuleSet(config), jobs=1).check([TESTDATA / "projects", ROOT / "examples"])
    return [(f.path, f.span.start_line, f.code, f.message) for f in result.findings], dict(result.work)


def test_dropping_the_modules_after_every_file_changes_no_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    kept, kept_work = findings(monkeypatch, 10_000)
    dropped, dropped_work = findings(monkeypatch, 0)
    assert kept and dropped == kept
    # the modules were dropped and built again (their expressions parsed again), and what was
    # parsed before a drop is still counted (the work-count test reads it)
    assert dropped_work["fragments_parsed"] > kept_work["fragments_parsed"] > 0
