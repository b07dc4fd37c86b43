"""Runs each target in its own process with a timeout: a hang, a crash or an OOM kill of one
target becomes that target's error and the run goes on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .targets import Target


@dataclass
class TargetRun:
    target: Target
    result: dict[str, Any] = field(default_factory=dict)  # the worker's JSON (empty if it died)
    error: str | None = None  # why the process gave no result: timeout, crash, OOM kill

    @property
    def failure(self) -> str | None:
        """Why this target did not run through: the process's fate or the example's own error."""
        if self.error:
            return self.error
        failed = self.result.get("error")
        if failed:
            return f"{failed['type']} in {failed['stage']}: {failed['message']}"
        return None


def child_environment(extra_path: list[str]) -> dict[str, str]:
    env = dict(os.environ)
    # Nothing may be written into the user's tree: no __pycache__ next to their modules.
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # breaklint itself must import in the child; last, so that it never shadows the user's modules.
    package_root = str(Path(__file__).resolve().parents[2])
    parts = [*extra_path, env.get("PYTHONPATH", ""), package_root]
    env["PYTHONPATH"] = os.pathsep.join(p for p in parts if p)
    env.setdefault("PYTHONBREAKPOINT", "0")  # a breakpoint() in user code must not hang the run
    return env


def describe_exit(returncode: int, stderr: str) -> str:
    if returncode < 0:
        name = signal.Signals(-returncode).name
        hint = " (killed: out of memory?)" if returncode == -signal.SIGKILL else ""
        return f"the target's process died with {name}{hint}"
    tail = stderr.strip().splitlines()[-1] if stderr.strip() else "no output"
    return f"the target's process exited with code {returncode}: {tail}"


def run_target(target: Target, stages: list[str], roots: list[Path], timeout: float,
               repeat: int, warmup: int) -> TargetRun:
    with tempfile.TemporaryDirectory(prefix="breaklint-confirm-") as scratch:
        request_path = Path(scratch) / "request.json"
        result_path = Path(scratch) / "result.json"
        request = {"path": str(target.path), "name": target.name, "line": target.line, "stages": stages,
                   "roots": [str(r) for r in roots], "repeat": repeat, "warmup": warmup}
        request_path.write_text(json.dumps(request), encoding="utf-8")
        command = [sys.executable, "-m", "breaklint.confirm.worker", str(request_path), str(result_path)]
        process = subprocess.Popen(
            command, cwd=target.path.parent, env=child_environment([str(target.path.parent)]),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True,  # its own process group: a timeout kills compile workers too
        )
        try:
            _, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return TargetRun(target, error=f"timed out after {timeout:g} s")
        if result_path.exists():
            return TargetRun(target, json.loads(result_path.read_text(encoding="utf-8")))
        return TargetRun(target, error=describe_exit(process.returncode, stderr))
