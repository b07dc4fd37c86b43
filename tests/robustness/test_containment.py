"""Issue 6, item 2: an internal error is contained to its rule and file (BL005, traceback with
--verbose, exit code 2) and never hides another file's or another rule's findings — whether it
happens in a rule's visit, its leave, its constructor, or in a worker process of `--jobs`.

tests/test_bad_input.py covers a rule that raises in `visit_*` in this process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Callable

import pytest

from breaklint.infra.parallel import HeadStart, WorkerPool, share
from breaklint.rule import Rule

from .support import BAD, by_path, check, exit_status
from testdata import HANG_GUARD_S

BRANCH = BAD + "    if x.sum() > 0:\n        pass\n"  # BL101 at 5:12 and BL102 at 6:8
OTHER = BAD.replace("item", "tolist")  # BL101 at 5:12


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "boom.py").write_text(BRANCH, encoding="utf-8")
    (tmp_path / "other.py").write_text(OTHER, encoding="utf-8")
    (tmp_path / "third.py").write_text(OTHER, encoding="utf-8")
    return tmp_path


def test_error_in_a_leave_hook(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from breaklint.rules.data_dependent_branch import DataDependentBranch

    def explode(self: Rule, node) -> None:  # type: ignore[no-untyped-def]
        if self.ctx.file.display == "boom.py":
            raise KeyError("leaving")

    monkeypatch.setattr(DataDependentBranch, "leave_If", explode, raising=False)
    result = check([tree], root=tree)
    found = by_path(result.findings)
    assert found["boom.py"] == [("BL005", 1, 1), ("BL101", 5, 12), ("BL102", 6, 8)]  # BL102 came before
    assert found["other.py"] == found["third.py"] == [("BL101", 5, 12)]
    assert "in rule BL102 (data-dependent-branch): KeyError" in result.findings[0].message
    assert exit_status(result) == 2


def test_error_in_a_rule_constructor(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from breaklint.rules.data_dependent_branch import DataDependentBranch

    original = DataDependentBranch.__init__

    def explode(self: Rule, ctx) -> None:  # type: ignore[no-untyped-def]
        if ctx.file.display == "boom.py":
            raise RuntimeError("cannot start")
        original(self, ctx)

    monkeypatch.setattr(DataDependentBranch, "__init__", explode)
    result = check([tree], root=tree)
    found = by_path(result.findings)
    assert ("BL101", 5, 12) in found["boom.py"] and ("BL005", 1, 1) in found["boom.py"]
    assert found["other.py"] == [("BL101", 5, 12)]
    assert exit_status(result) == 2


def _cli_with_patch(tree: Path, patch: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`breaklint check ARGS` in a process where `patch` changed a rule first (workers fork and
    inherit it)."""
    script = textwrap.dedent(patch) + textwrap.dedent("""
        from breaklint.cli import main
        sys.argv = ["breaklint", "check", "--no-cache", "--format", "json", *ARGS]
        main()
    """).replace("ARGS", repr(list(args)))
    return subprocess.run([sys.executable, "-c", "import sys, os\n" + script], cwd=tree, capture_output=True,
                          text=True, timeout=HANG_GUARD_S)


RAISE_ON_BOOM = """
from breaklint.rules.tensor_to_scalar import TensorToScalar
original = TensorToScalar.visit_Call
def visit_Call(self, node):
    if self.ctx.file.display == "boom.py":
        raise RuntimeError("boom")
    original(self, node)
TensorToScalar.visit_Call = visit_Call
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_rule_error_in_a_worker_process(tree: Path, jobs: str) -> None:
    import json

    run = _cli_with_patch(tree, RAISE_ON_BOOM, "--jobs", jobs, "--verbose", ".")
    assert run.returncode == 2, run.stderr[-2000:]
    found = {(r["path"], r["code"], r["start_line"]) for r in json.loads(run.stdout)}
    assert found == {("boom.py", "BL005", 1), ("boom.py", "BL102", 6), ("other.py", "BL101", 5),
                     ("third.py", "BL101", 5)}
    details = next(r["details"] for r in json.loads(run.stdout) if r["code"] == "BL005")
    assert "RuntimeError: boom" in details and "Traceback" in details


DIE_ON_BOOM = """
from breaklint.rules.tensor_to_scalar import TensorToScalar
original = TensorToScalar.visit_Call
def visit_Call(self, node):
    if self.ctx.file.display == "boom.py":
        os._exit(9)  # what a native crash (libcst's parser overflowing its stack) looks like
    original(self, node)
TensorToScalar.visit_Call = visit_Call
"""


def test_worker_process_that_dies(tree: Path) -> None:
    import json

    run = _cli_with_patch(tree, DIE_ON_BOOM, "--jobs", "2", ".")
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    assert run.returncode == 2
    found = {(r["path"], r["code"]) for r in json.loads(run.stdout)}
    assert {("boom.py", "BL005"), ("other.py", "BL101"), ("third.py", "BL101")} <= found


def test_keyboard_interrupt_is_not_swallowed(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Containment is for errors: Ctrl-C still stops the run."""
    from breaklint.rules.tensor_to_scalar import TensorToScalar

    def interrupt(self: Rule, node) -> None:  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    monkeypatch.setattr(TensorToScalar, "visit_Call", interrupt)
    with pytest.raises(KeyboardInterrupt):
        check([tree], root=tree)


def test_cli_exit_code_and_no_traceback_on_stderr(tree: Path) -> None:
    run = _cli_with_patch(tree, RAISE_ON_BOOM, ".")
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    assert run.returncode == 2


def test_error_while_indexing_one_file(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import breaklint.index.builder as prepass

    original = prepass.summarize_lines  # what the pre-pass calls (scan._summary)

    def explode(text: str, module_name: str, *args, **kwargs):  # type: ignore[no-untyped-def]
        if module_name == "boom":
            raise RuntimeError("index")
        return original(text, module_name, *args, **kwargs)

    monkeypatch.setattr(prepass, "summarize_lines", explode)
    result = check([tree], root=tree)
    found = by_path(result.findings)
    assert [code for code, _, _ in found["boom.py"]] == ["BL005"]
    assert found["other.py"] == found["third.py"] == [("BL101", 5, 12)]
    assert exit_status(result) == 2


# --- the pool itself (breaklint/infra/parallel.py) --------------------------------------------------
def _no_state(state: object) -> None:
    pass


def _square_or_die(item: int) -> int:
    if item == 13:
        os._exit(9)  # a native crash, as the pool sees it
    if item == 21:
        os.kill(os.getpid(), signal.SIGKILL)  # the OOM killer
    return item * item


def _crashed(item: int, why: str) -> int:
    assert why == {13: "exit code 9", 21: "killed by SIGKILL"}[item], why
    return -item


@pytest.mark.parametrize("chunksize", [1, 4])
def test_pool_survives_a_dying_worker(chunksize: int) -> None:
    """Every item gets its result in order; only the item whose process died alone gets
    on_crash's; the items that died with it (in flight, or in its chunk) run again."""
    with WorkerPool(2, _no_state, None) as pool:
        results = pool.map(_square_or_die, list(range(30)), chunksize=chunksize, on_crash=_crashed)
    assert results == [-i if i in (13, 21) else i * i for i in range(30)]


def test_pool_without_on_crash_still_raises() -> None:
    with WorkerPool(2, _no_state, None) as pool, pytest.raises(BrokenProcessPool):
        pool.map(_square_or_die, [12, 13, 14])


def test_a_dead_worker_is_never_cached(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The BL005 of a worker that died is this run's news only: the next run checks the file."""
    from breaklint.check.salt import project_cache
    from breaklint.config import Config
    from breaklint.check.engine import Engine
    from breaklint.check.registry import RuleSet
    from breaklint.rules.tensor_to_scalar import TensorToScalar

    original = TensorToScalar.visit_Call

    def die_on_boom(self: Rule, node) -> None:  # type: ignore[no-untyped-def]
        if self.ctx.file.display == "boom.py":
            os._exit(9)
        original(self, node)

    config = Config(root=tree)
    cache = tree / ".breaklint_cache"
    monkeypatch.setattr(TensorToScalar, "visit_Call", die_on_boom)  # the forked workers inherit it
    first = Engine(config, RuleSet(config), jobs=2, cache=project_cache(cache)).check([tree])
    assert ("BL005", 1, 1) in by_path(first.findings)["boom.py"]
    assert "worker process died (exit code 9)" in next(f.message for f in first.findings if f.code == "BL005")
    monkeypatch.setattr(TensorToScalar, "visit_Call", original)
    again = Engine(config, RuleSet(config), jobs=2, cache=project_cache(cache)).check([tree])
    assert by_path(again.findings)["boom.py"] == [("BL101", 5, 12), ("BL102", 6, 8)]


def test_a_worker_dying_in_the_pre_pass(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pre-pass runs in workers too (from 64 files on): a death there is BL005 for that file."""
    import breaklint.index.scan as scan

    for i in range(70):
        (tree / f"more_{i}.py").write_text(OTHER, encoding="utf-8")
    original = scan._summary

    def die_on_boom(text: str, module_name: str, is_package: bool, *rest):  # type: ignore[no-untyped-def]
        if module_name == "boom":
            os._exit(9)
        return original(text, module_name, is_package, *rest)

    monkeypatch.setattr(scan, "_summary", die_on_boom)  # the forked workers inherit it
    result = check([tree], root=tree, jobs=2)
    found = by_path(result.findings)
    assert found["boom.py"] == [("BL005", 1, 1)]
    assert "worker process died (exit code 9)" in result.findings[0].message
    assert all(found[f"more_{i}.py"] == [("BL101", 5, 12)] for i in range(70))
    assert found["other.py"] == found["third.py"] == [("BL101", 5, 12)]
    assert exit_status(result) == 2


# A head-start worker (HeadStart): what it did ahead is marked in its own process.
_AHEAD: list[int] = []


def _work_ahead(stop: Callable[[], bool]) -> None:
    _AHEAD.append(os.getpid())


def _die_ahead(stop: Callable[[], bool]) -> None:
    os._exit(7)


def _adopted(news: int) -> list[int]:
    return [news, len(_AHEAD)]


def _square_where(item: int) -> tuple[int, bool]:
    """The square, and whether the head-start worker computed it (_die_or_square: 13 and 21 die)."""
    return _square_or_die(item), bool(_AHEAD)


def _crashed_where(item: int, why: str) -> tuple[int, bool]:
    return _crashed(item, why), False


def _raise_on_five(item: int) -> int:
    if item == 5:
        raise ValueError("five")
    return item


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a head-start worker is forked")
def test_a_head_start_shares_the_items_and_survives_dying_workers() -> None:
    """The head-start worker answers settle() after its work ahead and starts on its preferred
    items; every item gets its result in order, an item whose process died gets on_crash's
    (13 kills the head-start worker, 21 the other), and what is left when both died runs in a
    pool."""
    with WorkerPool(2, _no_state, None) as pool:
        head = HeadStart(_no_state, None, _work_ahead)
        assert head.settle(_adopted, 4) == [4, 1]  # adopted where the work ahead was done
        results = share(_square_where, list(range(30)), [(head, [10, 13, 2])], pool, on_crash=_crashed_where)
    assert [value for value, _ in results] == [-i if i in (13, 21) else i * i for i in range(30)]
    # Its first preferred item is given to it at once, the next kills it: 2 goes to the other.
    assert [i for i, (_, where) in enumerate(results) if where] == [10]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a head-start worker is forked")
def test_a_head_start_that_dies_ahead_takes_no_share() -> None:
    head = HeadStart(_no_state, None, _die_ahead)
    assert head.settle(_adopted, 4) is None
    head.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a head-start worker is forked")
def test_a_head_start_passes_on_the_items_exception() -> None:
    with WorkerPool(2, _no_state, None) as pool:
        head = HeadStart(_no_state, None, _work_ahead)
        head.settle(_adopted, 0)
        with pytest.raises(ValueError, match="five"):
            share(_raise_on_five, list(range(10)), [(head, [5])], pool)


def _interrupted_ahead(stop: Callable[[], bool]) -> None:
    raise KeyboardInterrupt  # Ctrl-C reaches every process of the terminal's group


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a head-start worker is forked")
def test_an_interrupted_worker_ends_without_a_traceback(capfd: pytest.CaptureFixture[str]) -> None:
    """The process that started it answers Ctrl-C (it ends its workers and says `Aborted!`):
    a worker prints nothing of its own (the interrupt once printed its traceback beside it)."""
    head = HeadStart(_no_state, None, _interrupted_ahead)
    assert head.settle(_adopted, 4) is None
    head.close()
    with WorkerPool(2, _no_state, None) as pool:
        assert pool.apart(_interrupted_ahead, lambda: False, on_crash=lambda item, why: why) == "exit code 0"
    assert "Traceback" not in capfd.readouterr().err


def _stuck_in_the_head_start(item: int) -> tuple[int, bool]:
    """Item 7 never ends in the head-start worker (as if the machine starved it: bounded, so
    that a share that waits for it fails the test instead of hanging it)."""
    if item == 7 and _AHEAD:
        time.sleep(HANG_GUARD_S)
    return item * item, bool(_AHEAD)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a head-start worker is forked")
def test_an_item_a_starved_worker_holds_is_taken_again() -> None:
    """Once nothing is left to start, a process that is done takes again an item another
    still works on: the first answer counts, and the slow one does not hold the end."""
    with WorkerPool(2, _no_state, None) as pool:
        head = HeadStart(_no_state, None, _work_ahead)
        head.settle(_adopted, 0)
        results = share(_stuck_in_the_head_start, list(range(20)), [(head, [7, 8, 9])], pool)
    assert [value for value, _ in results] == [i * i for i in range(20)]
    assert results[7] == (49, False)  # answered by the other worker
