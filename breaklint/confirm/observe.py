"""Observe mode: `breaklint confirm -- python train.py` runs any command unchanged and collects
every compile event its Python processes cause; `--ladder` runs it once per stage.

A `sitecustomize` put first on PYTHONPATH starts the capture (hook.py) in every Python process
the command starts (pytest workers and DataLoader processes too) and, at exit, writes what it
saw to a JSON file per process. The user's program, arguments and files are untouched, and so
is its output: the compiler's log records we listen to are captured, not printed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .hook import OUT_VARIABLE, STAGE_VARIABLE
from .ranks import ranked_events
from .runner import child_environment

SITECUSTOMIZE = '''
try:
    from breaklint.confirm.hook import start as _breaklint_start
except Exception:
    pass
else:
    _breaklint_start()
'''


@dataclass(frozen=True)
class Observation:
    returncode: int | None  # None: it ran past the timeout and was stopped
    events: list[dict[str, Any]]
    frames: list[list[Any]]  # [filename, first line] of every frame Dynamo compiled
    processes: list[dict[str, Any]] = field(default_factory=list)  # each process's dump
    seconds: float = 0.0  # the command's wall time
    output_tail: str = ""  # the last lines of its output, where it was captured


def observe(command: list[str], timeout: float | None = None, stage: str | None = None,
            output: IO[Any] | None = None) -> Observation:
    """Run `command` with the hook in its Python processes; its output goes to `output`
    (default: this process's stderr, so that stdout carries only breaklint's report)."""
    with tempfile.TemporaryDirectory(prefix="breaklint-observe-") as scratch:
        hook_dir = Path(scratch) / "hook"
        out_dir = Path(scratch) / "events"
        hook_dir.mkdir()
        out_dir.mkdir()
        (hook_dir / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
        env = child_environment([str(hook_dir)])
        env[OUT_VARIABLE] = str(out_dir)
        if stage is not None:
            env[STAGE_VARIABLE] = stage
        # PYTHONPATH order: our hook first so that it is *the* sitecustomize.
        env["PYTHONPATH"] = os.pathsep.join([str(hook_dir), env["PYTHONPATH"]])
        started = time.perf_counter()
        captured = output is None and stage is not None
        sink = tempfile.TemporaryFile(dir=scratch) if captured else (output or sys.stderr)
        try:
            completed = subprocess.run(command, env=env, timeout=timeout, stdout=sink, stderr=sink if captured else None)
            returncode: int | None = completed.returncode
        except subprocess.TimeoutExpired:
            returncode = None
        seconds = time.perf_counter() - started
        tail = ""
        if captured:
            sink.seek(0)
            tail = "\n".join(sink.read().decode("utf-8", "replace").strip().splitlines()[-5:])
            sink.close()
        processes = [json.loads(dump.read_text(encoding="utf-8")) for dump in sorted(out_dir.glob("events-*.json"))]
        return Observation(returncode, ranked_events(processes),
                           [f for p in processes for f in p["frames"]], processes, seconds, tail)
