"""A worker process ends when the process that started it dies.

A `--jobs` worker blocks on its call queue; when the parent is killed (SIGKILL from a CI time-out
or the OOM killer) nothing ever closes that queue, and the workers would wait for minutes, or for
ever. On Linux the kernel sends the worker SIGKILL when its parent dies (PR_SET_PDEATHSIG, asked
through libc's prctl); elsewhere, or if that fails, a daemon thread looks every second whether the
parent is still the one that started it.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_POLL_SECONDS = 1.0


def die_with(parent: int) -> None:
    """Called first thing in a worker: `parent` is the pid of the process that started it."""
    if not (sys.platform.startswith("linux") and _ask_the_kernel()):
        threading.Thread(target=_watch, args=(parent,), name="breaklint-lifeline", daemon=True).start()
    if os.getppid() != parent:  # it died before we asked: no signal will come
        os._exit(1)


def _ask_the_kernel() -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):  # no libc symbols to reach (a static or unusual build)
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        threading.Event().wait(_POLL_SECONDS)
    os._exit(1)
