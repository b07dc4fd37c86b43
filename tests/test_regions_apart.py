"""The compiled regions of a large tree (more modules than the check keeps,
engine._KEPT_MODULES) are computed in a process of their own
(engine._Run._regions_beside_verdicts), with any number of jobs: the index they build ends with
that process, and neither this process (one job: the whole of transformers peaked at 630 MB
with both) nor the check's workers, forked afterwards, keep its heap. In a smaller tree they are computed
here, and the workers inherit the modules they built. Meanwhile a pool's workers ask Python's
compiler about the files the pre-pass left to it (where head starts take the cores the regions
leave, a small tree's cold check, the pre-pass judges every file itself). The findings are those of one job
(tests/test_speed_equivalence.py); here: where the work runs, and what a death of either
process is reported as."""

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


def _record_pids(monkeypatch: pytest.MonkeyPatch, where: Path, cls: type, name: str) -> None:
    original = getattr(cls, name)

    def recording(run: engine_module._Run, *args):  # type: ignore[no-untyped-def]
        with where.open("a") as pids:  # a child's memory is its own: tell the parent through a file
            pids.write(f"{os.getpid()}\n")
        return original(run, *args)

    monkeypatch.setattr(cls, name, recording)


def test_the_regions_run_apart_in_a_large_tree_and_here_otherwise(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    where = tmp_path / "pids"
    _record_pids(monkeypatch, where, engine_module._Run, "regions_computed")
    monkeypatch.chdir(ROOT)
    one = _check(1)
    assert where.read_text().split() == [str(os.getpid())]
    where.unlink()
    assert _check(2) == one
    assert where.read_text().split() == [str(os.getpid())]  # examples/: a small tree
    where.unlink()
    monkeypatch.setattr(engine_module, "_KEPT_MODULES", 0)  # every tree is large
    for jobs in (2, 1):  # one job too: its process would hold both the regions' index and the check's
        assert _check(jobs) == one and any(code == "BL101" for code, _ in one)
        apart = where.read_text().split()
        assert apart != [str(os.getpid())] and len(apart) == 1
        where.unlink()


def _tree_for_a_pool(tree: Path) -> Path:
    """Enough files for the pre-pass's pool (engine._POOL_FROM), which leaves the compiler to the
    engine (their forwards make the regions' walk long enough for all of it: _Run._judged_later);
    one compiled function, one file the compiler refuses."""
    tree.mkdir()
    for i in range(engine_module._POOL_FROM + 6):
        (tree / f"m{i}.py").write_text(f"import torch\n\n\nclass M{i}(torch.nn.Module):\n"
                                       f"    def forward(self, x):\n        return x + {i}\n")
    (tree / "model.py").write_text("import torch\n\n\n@torch.compile\ndef f(x):\n    return x.item()\n")
    (tree / "refused.py").write_text("def g(a, a):\n    return a\n")
    return tree


def _check_tree(tree: Path, jobs: int) -> list[tuple[str, str, int]]:
    config = Config(root=tree)
    result = Engine(config, RuleSet(config), jobs=jobs).check([tree])
    return [(f.code, f.path, f.span.start_line) for f in result.findings]


def test_the_pools_workers_judge_beside_the_regions(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    tree = _tree_for_a_pool(tmp_path / "tree")
    one = _check_tree(tree, 1)
    assert ("BL001", str(tree / "refused.py"), 1) in one and any(code == "BL101" for code, _, _ in one)
    judged, regions = tmp_path / "judged", tmp_path / "regions"
    _record_pids(monkeypatch, judged, engine_module._Run, "verdict")
    _record_pids(monkeypatch, regions, engine_module._Run, "regions_computed")
    main = str(os.getpid())
    # A small tree's cold check gets head starts, which take the cores the regions leave: the
    # pre-pass judges every file itself (the refused one is left out of the regions at once).
    assert _check_tree(tree, 2) == one
    assert not judged.exists() and regions.read_text().split() == [main]
    regions.unlink()
    monkeypatch.setattr(engine_module._Run, "_heads_wanted", lambda run: False)
    for large in (False, True):
        if large:
            monkeypatch.setattr(engine_module, "_KEPT_MODULES", 0)
        assert _check_tree(tree, 2) == one
        by = set(judged.read_text().split())
        assert by and main not in by
        pids = regions.read_text().split()
        assert len(pids) == 2  # the refused file is left out, and the regions computed again
        assert all((pid == main) != large for pid in pids)  # here in a small tree, apart in a large one
        judged.unlink()
        regions.unlink()


@pytest.mark.parametrize("large", [False, True], ids=["one-process", "pool"])
def test_a_death_of_the_compilers_process_changes_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                          large: bool) -> None:
    """The files whose verdicts were lost with their process are judged here instead (the
    compiler's own crash would end this process the same way): beside the regions computed here
    (one process judges), and beside the regions' process (a pool judges)."""
    tree = _tree_for_a_pool(tmp_path / "tree")
    one = _check_tree(tree, 1)
    main, verdict = os.getpid(), engine_module._Run.verdict

    def die_on_refused(run: engine_module._Run, index: int):  # type: ignore[no-untyped-def]
        if os.getpid() != main and run.sources[index].path.name == "refused.py":
            os._exit(3)
        return verdict(run, index)

    monkeypatch.setattr(engine_module._Run, "verdict", die_on_refused)
    monkeypatch.setattr(engine_module._Run, "_heads_wanted", lambda run: False)  # else the pre-pass judges
    if large:
        monkeypatch.setattr(engine_module, "_KEPT_MODULES", 0)
    assert _check_tree(tree, 2) == one


def test_a_death_of_the_regions_process_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(worker, "regions_task", lambda candidates: os._exit(3))
    monkeypatch.setattr(engine_module, "_KEPT_MODULES", 0)  # the regions apart
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
    """With two jobs, a pre-pass of a few files runs here, and so do the regions of a small tree:
    this process imports libcst; the check's workers, forked afterwards, do not."""
    assert _imports_of_libcst(ROOT / "examples", tmp_path / "imports") == ["main"]


def test_no_other_process_imports_libcst_after_a_pooled_prepass(tmp_path: Path) -> None:
    """A pre-pass of 64 files or more runs in workers: this process imports libcst meanwhile
    (engine._ready_for_the_check), and neither the compiler's process nor the check's workers
    import it again."""
    assert _imports_of_libcst(_tree_for_a_pool(tmp_path / "tree"), tmp_path / "imports") == ["main"]
