"""A process pool over files that keeps the input order (and runs inline for one job).

Workers are forked where fork is safe (Linux): they inherit the index built so far instead of
receiving it pickled. Elsewhere they are spawned and get the state through the initializer.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Iterable, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def available_cores() -> int:
    """The cores this process may run on (a container's CPU set), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class WorkerPool:
    def __init__(self, jobs: int, initializer: Callable[[Any], None], state: Any) -> None:
        self.jobs = jobs
        self._initializer = initializer
        self._state = state
        self._executor: ProcessPoolExecutor | None = None

    def __enter__(self) -> "WorkerPool":
        if self.jobs > 1:
            method = "fork" if sys.platform.startswith("linux") else "spawn"
            self._executor = ProcessPoolExecutor(
                max_workers=self.jobs, mp_context=multiprocessing.get_context(method),
                initializer=self._initializer, initargs=(self._state,),
            )
        return self

    def __exit__(self, *exc: object) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)

    def map(self, function: Callable[[T], R], items: Iterable[T], chunksize: int = 1) -> list[R]:
        """`function` over `items`, results in the order of `items`."""
        if self._executor is None:
            return [function(item) for item in items]
        return list(self._executor.map(function, items, chunksize=chunksize))
