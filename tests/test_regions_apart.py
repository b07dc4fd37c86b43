"""With more than one job the compiled regions are computed in a process of their own
(engine._Run._compute_regions): the index they build (most modules of a large tree) ends with
that process, and the check's workers, forked afterwards, do not inherit its heap. The findings
are those of one job (tests/test_speed_equivalence.py); here: where the work runs, and what a
death of that process is reported as."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testdata import HANG_GUARD_S, ROOT

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


def _child_pid(_: int) -> int:
    return os.getpid()


def test_what_runs_meanwhile_runs_here_while_the_process_works(tmp_path: Path) -> None:
    """WorkerPool.apart's `meanwhile`: in this process, and the child is waited for even when it raises."""
    ran: list[int] = []
    with WorkerPool(2, lambda state: None, None) as pool:
        child = pool.apart(_child_pid, 0, meanwhile=lambda: ran.append(os.getpid()))
        with pytest.raises(ZeroDivisionError):
            pool.apart(_child_pid, 0, meanwhile=lambda: 1 / 0)
    assert ran == [os.getpid()] and child != os.getpid()
    assert not [p for p in __import__("multiprocessing").active_children()]


def _imports_of_libcst(tree: Path, record: Path) -> list[str]:
    """Which processes of a two-job check import libcst: this one ("main") or another."""
    probe = ("import os, sys\n"
             "from breaklint import cli\n"  # defers libcst (deferred.py)
             "from breaklint.infra.deferred import when_imported\n"
             "main = os.getpid()\n"
             f"when_imported('libcst', lambda m: open({str(record)!r}, 'a').write('main\\n' if os.getpid() == main else 'child\\n'))\n"
             "sys.argv = ['breaklint', *sys.argv[1:]]\n"
             "try:\n    import breaklint.cli; breaklint.cli.run()\n"
             "except SystemExit as exit:\n    print('EXIT', exit.code, file=sys.stderr)\n")
    result = subprocess.run([sys.executable, "-c", probe, "check", "--no-cache", "--jobs", "2", "--format", "json",
                             str(tree)], cwd=ROOT, capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert result.stderr.split()[-2:] == ["EXIT", "1"], result.stderr
    return sorted(record.read_text().split())


def test_the_check_workers_inherit_libcst(tmp_path: Path) -> None:
    """engine._ready_for_the_check: with two jobs, a pre-pass of a few files runs here, and this
    process imports libcst while the regions' process works (which imports it too); the check's
    workers, forked afterwards, do not."""
    assert _imports_of_libcst(ROOT / "examples", tmp_path / "imports") == ["child", "main"]


def test_the_regions_process_inherits_libcst_after_a_pooled_prepass(tmp_path: Path) -> None:
    """A pre-pass of 64 files or more runs in workers: this process imports libcst meanwhile, and
    neither the regions' process nor the check's workers import it again."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(70):
        (tree / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
    (tree / "model.py").write_text("import torch\n\n\n@torch.compile\ndef f(x):\n    return x.item()\n")
    assert _imports_of_libcst(tree, tmp_path / "imports") == ["main"]
