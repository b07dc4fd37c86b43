"""A process drops the modules it built from summaries between files once it holds more than
`_KEPT_MODULES` (engine._Run.release_index): memory that does not grow with the files it checks.
Dropping them after every file must give the same findings as keeping them all."""

from __future__ import annotations

import weakref

import pytest
from testdata import ROOT, TESTDATA

from breaklint.check import engine as engine_module, worker
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


@pytest.mark.parametrize("thaw", [True, False])
def test_the_dropped_modules_are_freed(monkeypatch: pytest.MonkeyPatch, thaw: bool) -> None:
    """What survives a file is frozen (worker.check_task: the collector leaves it alone); the
    modules dropped later were frozen with it, and they are cyclic (a module and its functions
    point at each other), so they are freed only if they are thawed first, or if their cycles
    are broken when they are dropped (view.release_bound: the thaw walks every object of the
    process, so it is rare). Else a process's memory grew with every drop (1.27 GB with one job
    on transformers)."""
    monkeypatch.setattr(engine_module, "_KEPT_MODULES", 3)  # kept over a few files, then dropped
    monkeypatch.setattr(worker, "_COLLECT_AFTER", -1)  # collected and frozen after every file
    monkeypatch.setattr(worker, "_THAW_EVERY", 1 if thaw else 10**9)
    monkeypatch.chdir(ROOT)
    built: list[weakref.ref[object]] = []
    stale: list[int] = []  # before each file: modules no longer in the index but not freed
    drops = []
    check_file = engine_module._Run.check_file

    def recording(run: engine_module._Run, index: int) -> engine_module._Checked:
        held = {id(slot.module) for slot in run.project._slots if slot.module is not None}
        stale.append(sum(1 for ref in built if ref() is not None and id(ref()) not in held))
        drops.append(len(held) == 0)
        result = check_file(run, index)
        built.extend(weakref.ref(slot.module) for slot in run.project._slots if slot.module is not None)
        return result

    monkeypatch.setattr(engine_module._Run, "check_file", recording)
    config = Config(root=ROOT)
    Engine(config, RuleSet(config), jobs=1).check([TESTDATA / "projects", ROOT / "examples"])
    assert sum(drops) > 2  # the index was dropped between files, more than once
    assert stale == [0] * len(stale)


def test_a_checked_files_index_and_tree_are_freed_without_the_collector(monkeypatch: pytest.MonkeyPatch) -> None:
    """worker.check_task collects only now and then: a checked file's index and its tree (a
    module, its defs and classes point at one another) must be freed by reference counting as
    soon as its rules are done (view.release_bound), or each file's would wait for the collector."""
    monkeypatch.chdir(ROOT)
    made: list[weakref.ref[object]] = []
    alive: list[str] = []
    deep_module = engine_module._Run._deep_module
    check_file = engine_module._Run.check_file

    def building(run: engine_module._Run, index: int, whole: bool = False) -> object:
        module = deep_module(run, index, whole)
        if not whole:  # not another file's tree, which a process keeps a few of (_KEPT_TREES)
            made.extend((weakref.ref(module), weakref.ref(module.file)))
        return module

    def checking(run: engine_module._Run, index: int) -> engine_module._Checked:
        result = check_file(run, index)
        alive.extend(type(ref()).__name__ for ref in made if ref() is not None)
        made.clear()
        return result

    monkeypatch.setattr(engine_module._Run, "_deep_module", building)
    monkeypatch.setattr(engine_module._Run, "check_file", checking)
    config = Config(root=ROOT)
    result = Engine(config, RuleSet(config), jobs=1).check([TESTDATA, ROOT / "examples"])
    assert result.findings and result.work["libcst_files"] > 50
    assert alive == []


def test_the_modules_built_are_counted_as_they_are_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """release_index compares what the project built with _KEPT_MODULES after every file; it is
    counted as each module is built (counting the built slots walked all of them each time)."""
    monkeypatch.setattr(engine_module, "_KEPT_MODULES", 5)
    monkeypatch.chdir(ROOT)
    counts: list[tuple[int, int]] = []
    check_file = engine_module._Run.check_file

    def counting(run: engine_module._Run, index: int) -> engine_module._Checked:
        project = run.project  # made again after a drop
        counts.append((run._built[0], project.by_name.built()))
        result = check_file(run, index)
        counts.append((run._built[0], run.project.by_name.built()))
        return result

    monkeypatch.setattr(engine_module._Run, "check_file", counting)
    config = Config(root=ROOT)
    Engine(config, RuleSet(config), jobs=1).check([TESTDATA, ROOT / "examples"])
    assert len(counts) > 100 and len({built for built, _ in counts}) > 3
    assert all(built == slots for built, slots in counts)
