"""What confirm shows on stderr while it runs: on a terminal, one live line (target, stage, what
it does, compile time so far); elsewhere a line per finished target. Never on stdout."""

from __future__ import annotations

import time
from typing import IO

from .runner import Status, TargetRun
from .targets import Target

REFRESH_S = 0.5
COMPILING = ("compiling", "first call", "recompile probe")


class Display:
    def __init__(self, stream: IO[str], total: int) -> None:
        self.stream = stream
        self.total = total
        self.live = bool(getattr(stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self.shown = 0.0
        self.width = 0

    def target(self, index: int, target: Target, status: Status) -> None:
        """The target's process reported `status`."""
        if not self.live or time.monotonic() - self.shown < REFRESH_S:
            return
        compiled = sum(s.get("first_call_s") or 0.0 for s in status.done)
        if status.phase in COMPILING:
            compiled += status.seconds
        line = (f"confirm [{index + 1}/{self.total}] {target.label} · {status.stage} · {status.phase} "
                f"{status.seconds:.0f} s · compile so far {compiled:.0f} s · {self.elapsed()}")
        self._show(line)

    def stage(self, stage: str, seconds: float) -> None:
        """--ladder: the program starts again for `stage`."""
        if self.live:
            self._show(f"confirm --ladder · {stage} · {seconds:.0f} s so far")
        else:
            self.stream.write(f"confirm --ladder: running the command for stage {stage}\n")
            self.stream.flush()

    def finished(self, run: TargetRun, index: int) -> None:
        self.clear()
        outcome = f"failed: {run.failure}" if run.failure else f"{len(run.result.get('stages', []))} stage(s)"
        self.stream.write(f"confirm [{index + 1}/{self.total}] {run.target.label}: {outcome} ({self.elapsed()})\n")
        self.stream.flush()

    def elapsed(self) -> str:
        return f"{time.monotonic() - self.started:.0f} s in all"

    def _show(self, line: str) -> None:
        self.shown = time.monotonic()
        self.stream.write("\r" + line[:200].ljust(self.width))
        self.width = min(200, len(line))
        self.stream.flush()

    def clear(self) -> None:
        if self.live and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.width = 0
            self.stream.flush()
