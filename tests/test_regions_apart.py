"""With more than one job the compiled regions are computed in a process of their own
(engine._Run._compute_regions): the index they build (most modules of a large tree) ends with
that process, and the check's workers, forked afterwards, do not inherit its heap. The findings
are those of one job (tests/test_speed_equivalence.py); here: where the work runs, and what a
death of that process is reported as."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from testdata import ROOT

from breaklint.check import engine as engine_module
from breaklint.check import worker
from breaklint.check.engine import Engine
from breaklint.check.registry import RuleSet
from breaklint.config import Config
from breaklint.infra.parallel import WorkerPool

pytestmark = pytest.mark.skipif(not WorkerPool.forks(), reason="workers are forked only on Linux")


def _check(jobs: int) -> list[tuple[str, str]]:
    config = Config(root=ROOT)
    result = Engine(config, RuleSet(config), jobs=jobs).check([ROOT / "examples"])
    return [(f.code, f.message) for f in result.findings]


def test_the_regions_run_apart_with_jobs_and_here_with_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    computed = engine_module._Run.regions_computed
    where = tmp_path / "pids"

    def recording(run: engine_module._Run, candidates: set[Path]):  # type: ignore[no-untyped-def]
        with where.open("a") as pids:  # the child's memory is its own: tell the parent through a file
            pids.write(f"{os.getpid()}\n")
        return computed(run, candidates)

    monkeypatch.setattr(engine_module._Run, "regions_computed", recording)
    monkeypatch.chdir(ROOT)
    two = _check(2)
    apart = where.read_text().split()
    where.unlink()
    one = _check(1)
    assert apart != [str(os.getpid())] and len(apart) == 1
    assert where.read_text().split() == [str(os.getpid())]
    assert two == one and any(code == "BL101" for code, _ in one)


def test_a_death_of_the_regions_process_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(worker, "regions_task", lambda candidates: os._exit(3))
    monkeypatch.chdir(ROOT)
    found = _check(2)
    assert found and all(code == "BL005" for code, _ in found)
    assert all("while finding the compiled regions: the process died (exit code 3)" in message for _, message in found)
