"""Observe mode: `breaklint confirm -- python train.py` runs any command unchanged and collects
every compile event its Python processes cause.

A `sitecustomize` put first on PYTHONPATH starts the capture in every Python process the command
starts (pytest workers and DataLoader processes too) and, at exit, writes what it saw to a JSON
file per process. The user's program, arguments and files are untouched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .runner import child_environment

OUT_VARIABLE = "BREAKLINT_OBSERVE_DIR"

SITECUSTOMIZE = '''
import atexit, json, os, sys

def _breaklint_observe():
    try:
        import torch  # noqa: F401  (the command's own torch)
        from breaklint.confirm.capture import capture_dynamo
        from breaklint.confirm.worker import compiled_frames, events_of
    except Exception:
        return  # no torch in this process: nothing to observe
    manager = capture_dynamo()
    capture = manager.__enter__()

    def dump():
        manager.__exit__(None, None, None)
        out = os.path.join(os.environ["{var}"], "events-%d.json" % os.getpid())
        with open(out, "w", encoding="utf-8") as handle:
            json.dump({{"events": events_of("observed", capture), "frames": compiled_frames()}}, handle)

    atexit.register(dump)

_breaklint_observe()
'''.format(var=OUT_VARIABLE)


@dataclass(frozen=True)
class Observation:
    returncode: int
    events: list[dict[str, Any]]
    frames: list[list[Any]]  # [filename, first line] of every frame Dynamo compiled


def observe(command: list[str], timeout: float | None = None) -> Observation:
    with tempfile.TemporaryDirectory(prefix="breaklint-observe-") as scratch:
        hook_dir = Path(scratch) / "hook"
        out_dir = Path(scratch) / "events"
        hook_dir.mkdir()
        out_dir.mkdir()
        (hook_dir / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
        env = child_environment([str(hook_dir)])
        env[OUT_VARIABLE] = str(out_dir)
        # PYTHONPATH order: our hook first so that it is *the* sitecustomize.
        env["PYTHONPATH"] = os.pathsep.join([str(hook_dir), env["PYTHONPATH"]])
        # The command's output goes to stderr, so that stdout carries only breaklint's report.
        completed = subprocess.run(command, env=env, timeout=timeout, stdout=sys.stderr)
        events: list[dict[str, Any]] = []
        frames: list[list[Any]] = []
        for dump in sorted(out_dir.glob("events-*.json")):
            data = json.loads(dump.read_text(encoding="utf-8"))
            events.extend(data["events"])
            frames.extend(data["frames"])
        return Observation(completed.returncode, events, frames)
