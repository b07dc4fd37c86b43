"""Issue 18, item 9: `--jobs` workers exit when their parent dies. After SIGKILL of the parent
(a CI time-out, the OOM killer) they once stayed alive for minutes, waiting on a queue that no
one would ever write to again (breaklint/infra/lifeline.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from testdata import HANG_GUARD_S

from .support import BAD, breaklint_command

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")
# How long the orphans get to go: generous, it is only waited out when they do not.
GRACE_SECONDS = HANG_GUARD_S  # a hang guard: PR_SET_PDEATHSIG ends them at once


def children(pid: int) -> set[int]:
    found: set[int] = set()
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            found.update(int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split())
    except OSError:
        pass
    return found


def alive(pid: int) -> bool:
    """Running, not a zombie (a container's pid 1 may never reap the orphans it inherits)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def wait_until(condition, seconds: float) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def kill_and_watch(parent: subprocess.Popen, workers: set[int]) -> list[int]:  # type: ignore[type-arg]
    """SIGKILL the parent; the workers still alive once the grace has passed (killed then)."""
    parent.kill()
    parent.wait(timeout=GRACE_SECONDS)
    wait_until(lambda: not any(alive(pid) for pid in workers), GRACE_SECONDS)
    left = sorted(pid for pid in workers if alive(pid))
    for pid in left:  # what this test started, by pid
        os.kill(pid, signal.SIGKILL)
    return left


def test_workers_exit_when_the_check_is_killed(tmp_path: Path) -> None:
    for n in range(400):  # the pre-pass and the rules both run in the pool (64 files and up)
        (tmp_path / f"m{n}.py").write_text(BAD + f"\n\ndef g{n}(x):\n    return x + {n}\n", encoding="utf-8")
    parent = subprocess.Popen([*breaklint_command(), "check", "--no-cache", "--jobs", "2", "."], cwd=tmp_path,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: len(children(parent.pid)) >= 2, GRACE_SECONDS), "no workers started"
        workers = children(parent.pid)
    except BaseException:
        parent.kill()
        raise
    assert kill_and_watch(parent, workers) == []


def test_the_watchdog_where_the_kernel_cannot_be_asked(tmp_path: Path) -> None:
    """The fallback (other systems, or a libc without prctl): a thread that watches the parent."""
    script = tmp_path / "orphan.py"
    script.write_text(textwrap.dedent("""
        import os, sys, time
        from breaklint.infra import lifeline
        lifeline._ask_the_kernel = lambda: False
        parent = os.getpid()
        child = os.fork()
        if child == 0:
            lifeline.die_with(parent)
            time.sleep(600)
            os._exit(0)
        print(child, flush=True)
        time.sleep(600)
    """), encoding="utf-8")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                              stdin=subprocess.DEVNULL)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
    except BaseException:
        parent.kill()
        raise
    assert kill_and_watch(parent, {child}) == []

