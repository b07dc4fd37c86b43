"""The entry points of a check's worker processes, and the one piece of state they keep.

The engine's pool (infra/parallel.py) starts each worker with `install`, then calls
`scan_task` (the pre-pass of one file), `regions_task` (the compiled regions, in a process of
their own) or `check_task` (libcst and the rules for one file) in it; a head start
(infra/parallel.HeadStart) runs `parse_ahead` beside the regions, then `adopt_ahead` and
`check_task`. The run a worker serves
is kept here, set before the pool forks (or by `install`, when the run arrives pickled into a
spawned worker): process-local by construction, and nothing else is kept between calls. A
one-job check runs the same task functions in the main process.
"""

from __future__ import annotations

import gc
import os
from typing import TYPE_CHECKING, Callable

from breaklint.infra.deferred import when_imported
from breaklint.infra.files import NUL_BYTES, ReadProblem, not_unicode
from breaklint.infra.trusted_nodes import trust_parsed_nodes
from breaklint.index.scan import FileFacts, scan_bytes, scan_text

if TYPE_CHECKING:
    from pathlib import Path

    from breaklint.check.engine import _Checked, _FileRegions, _Reads, _Run

# The run this process serves (at most one).
SERVED: list[_Run] = []


def install(run: _Run | None) -> None:
    if run is not None:  # spawn: the run arrives pickled; fork: it is already here
        SERVED[:] = [run]
        when_imported("libcst", trust_parsed_nodes)  # a process of its own, which reads parsed trees only
    gc.disable()  # for good: a process of the check's (infra/collector.py); check_task collects after each file
    gc.freeze()  # what the worker inherited is never garbage: keep the collector off it


def install_yielding(run: _Run | None) -> None:
    """`install`, in a process that yields the core to the others (the compiler's verdicts beside
    the regions, which the check waits for: engine.py, `_regions_beside_verdicts`)."""
    install(run)
    try:
        os.nice(10)
    except (OSError, AttributeError):  # not allowed here, or no such call (Windows): it competes as an equal
        pass


# A file to pre-pass: its bytes as read (or an overlay's text, or why it could not be read), its
# module name, whether it is a package's `__init__`, its content digest.
ScanTask = tuple[bytes | ReadProblem | str, str, bool, str]


def scan_task(item: tuple[ScanTask, bool]) -> FileFacts:
    """The pre-pass of one file; the flag: compiled_verdict's `defer_compile` (the engine asks the
    compiler beside the regions: engine.py, `_judged_later`)."""
    (data, module_name, is_package, digest), defer_compile = item
    if isinstance(data, str):  # an overlay's text
        problem = NUL_BYTES if "\0" in data else not_unicode(data, "the buffer")  # as `check` says of a file
        if problem is not None:
            return FileFacts("", problem, b"", "", False, False, False)  # no digest: never cached
        return scan_text(data, digest, module_name, is_package, defer_compile)
    return scan_bytes(data, module_name, is_package, defer_compile)


def scan_crashed(item: tuple[ScanTask, bool], why: str) -> FileFacts:
    problem = ReadProblem("BL005", f"internal error while indexing this file: the worker process died ({why})")
    return FileFacts("", problem, b"", "", False, False, False)  # no digest: never cached


def regions_task(candidates: set[Path]) -> tuple[dict[str, _FileRegions], _Reads]:
    """The compiled regions, in a process of their own (engine.py, `_compute_regions`)."""
    return SERVED[0].regions_computed(candidates)


def verdict_task(index: int) -> ReadProblem | None:
    """Python's compiler on a file the pre-pass left to it, beside the regions (engine.py,
    `_regions_beside_verdicts`)."""
    return SERVED[0].verdict(index)


def verdicts_task(indices: list[int]) -> list[ReadProblem | None]:
    """verdict_task for each file, in one process (engine.py, `_regions_beside_verdicts`)."""
    return [SERVED[0].verdict(index) for index in indices]


def adopt(news: tuple[dict[int, _FileRegions], dict[int, FileFacts]]) -> None:
    """What a ready worker (infra/parallel.ReadyWorker), forked before the changed files' pre-pass
    and the regions, needs of them before it checks: the regions, and those files' facts."""
    run = SERVED[0]
    regions, facts = news
    run.regions = regions
    for index, found in facts.items():
        run.facts[index] = found


def parse_ahead(stop: Callable[[], bool], part: tuple[int, int] = (0, 1)) -> None:
    """A head-start worker's work while the regions are computed (engine.py, `_head_start`):
    its part of it, (which, of how many)."""
    SERVED[0].parse_ahead(stop, part)


def adopt_ahead(news: tuple[dict[int, _FileRegions], dict[int, FileFacts]]) -> list[int]:
    """The regions, in a head-start worker; the files whose trees it parsed ahead serve them."""
    adopt(news)
    return SERVED[0].usable_ahead()


def check_task(index: int) -> _Checked:
    """One file's rules. The collector is off while they run (libcst makes millions of objects,
    each automatic pass would walk them all, again and again: a third of the time). A file's
    index and tree are freed by reference counting when it is done (view.release_bound breaks
    their cycles), so what the files leave behind is collected only once it has grown by
    _COLLECT_AFTER objects (a bound on the garbage that no cycle-breaking foresaw), or when the
    index is dropped (its modules' cycles broken as well); what survives is frozen (and thawed
    at every _THAW_EVERY-th drop: frozen objects are never collected). After the last file nothing
    is collected: a full pass then costs more than the file, and the process ends."""
    run = SERVED[0]
    if run.checked_here:
        dropped = run.release_index()  # bounded memory: a worker's files may read most of the project
        if dropped and run.drops % _THAW_EVERY == 0:
            # What the dropped modules left in cycles was frozen with the rest, else never freed; their
            # own cycles are broken (view.release_bound), so the thaw, which walks every object of
            # the process, is only a safety net.
            gc.unfreeze()
        if dropped or gc.get_count()[0] > _COLLECT_AFTER:  # counted with the collector off too
            gc.collect()
            gc.freeze()
    run.checked_here += 1
    return run.check_file(index)


# Objects made (less those freed) since the last collection before the next one: a few files'
# survivors (each walked once, then frozen), and at most about 20 MB of cyclic garbage.
_COLLECT_AFTER = 200_000
_THAW_EVERY = 4  # index drops
