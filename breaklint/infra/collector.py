"""The collector's setting while a check runs, made by the process that runs it (the command
line, the language server; a worker process pauses it for good when it starts): the engine
itself never changes it.

A check makes millions of objects and next to no cycles (a dropped index's cycles are broken
by hand, index/view.release_bound), so each automatic pass walks them all again for nothing: a
third of the pre-pass's time. The engine collects where garbage can be (check/worker.py: after
files, when the index is dropped); the process pauses the automatic collector around the check."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def paused_collector() -> Iterator[None]:
    """The automatic collector off for the block, as it was after it."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
