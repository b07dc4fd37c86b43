"""Runs each target in its own process with a timeout: a hang, a crash or an OOM kill of one
target becomes that target's error and the run goes on. The worker writes its result after
every stage, so a time-out keeps the stages that finished."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .targets import Target

POLL_S = 0.25  # how often the parent looks at the child's progress


@dataclass
class TargetRun:
    target: Target
    result: dict[str, Any] = field(default_factory=dict)  # the worker's JSON (empty if it died early)
    error: str | None = None  # why the process gave no (complete) result: timeout, crash, OOM kill

    @property
    def failure(self) -> str | None:
        """Why this target did not run through: the process's fate or the example's own error."""
        if self.error:
            return self.error
        failed = self.result.get("error")
        if failed:
            return f"{failed['type']} in {failed['stage']}: {failed['message']}"
        return None


@dataclass(frozen=True)
class Status:
    """What the child said it is doing: for the live display."""

    stage: str
    phase: str
    seconds: float  # in this phase so far
    done: tuple[dict[str, Any], ...]  # the stages it finished


Watcher = Callable[[Status], None]


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


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def wait_watching(process: subprocess.Popen[bytes], timeout: float, status_path: Path | None,
                  result_path: Path | None, watch: Watcher | None) -> bool:
    """Wait for the child, telling `watch` what it does; False when it ran past `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            process.wait(timeout=min(POLL_S, max(0.0, deadline - time.monotonic())))
            return True
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                return False
        if watch is not None and status_path is not None:
            status = read_json(status_path)
            if status:
                partial = read_json(result_path) if result_path is not None else None
                watch(Status(status["stage"], status["phase"], time.time() - status["since"],
                             tuple((partial or {}).get("stages", []))))


def kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def run_target(target: Target, stages: list[str], roots: list[Path], timeout: float,
               repeat: int, warmup: int, watch: Watcher | None = None, nproc: int | None = None) -> TargetRun:
    if nproc is not None:  # --nproc N (1 too: one rank with a process group)
        return run_ranks(target, stages, roots, timeout, repeat, warmup, watch, nproc)
    with tempfile.TemporaryDirectory(prefix="breaklint-confirm-") as scratch:
        request_path = Path(scratch) / "request.json"
        result_path = Path(scratch) / "result.json"
        status_path = Path(scratch) / "status.json"
        request = {"path": str(target.path), "name": target.name, "line": target.line, "stages": stages,
                   "roots": [str(r) for r in roots], "repeat": repeat, "warmup": warmup,
                   "progress": str(status_path)}
        request_path.write_text(json.dumps(request), encoding="utf-8")
        command = [sys.executable, "-m", "breaklint.confirm.worker", str(request_path), str(result_path)]
        # The child's output (compiler warnings, the model's prints) goes to a file, not the
        # user's terminal: its last line explains a crash.
        with open(Path(scratch) / "output.txt", "w+b") as output:
            process = subprocess.Popen(
                command, cwd=target.path.parent, env=child_environment([str(target.path.parent)]),
                stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: a timeout kills compile workers too
            )
            finished = wait_watching(process, timeout, status_path, result_path, watch)
            if not finished:
                kill_group(process)
            output.seek(0)
            text = output.read().decode("utf-8", "replace")
        result = read_json(result_path)
        if not finished:
            status = read_json(status_path) or {}
            stage = status.get("stage")
            where = (" while building the example" if stage == "example" else
                     f" in stage {stage} ({status['phase']})" if stage else "")
            return TargetRun(target, result or {}, error=f"timed out after {timeout:.3g} s{where}")
        if result is not None and result.get("complete", True):
            return TargetRun(target, result)
        return TargetRun(target, result or {}, error=describe_exit(process.returncode, text))


def _wait_ranks(processes: list[subprocess.Popen[bytes]], results: list[Path], timeout: float,
                status_path: Path, watch: Watcher | None) -> bool:
    """Wait for every rank; False when they ran past `timeout`. A rank that dies, or whose target
    failed, ends the wait: the others would wait for it in their next collective."""
    deadline = time.monotonic() + timeout
    while True:
        if all(p.poll() is not None for p in processes):
            return True
        for process, result_path in zip(processes, results):
            if process.poll() is not None and (process.returncode or (read_json(result_path) or {}).get("error")):
                return True  # what it says is the run's failure; the rest are stopped
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)
        status = read_json(status_path) if watch is not None else None
        if status and watch is not None:
            partial = read_json(results[0])
            watch(Status(status["stage"], status["phase"], time.time() - status["since"],
                         tuple((partial or {}).get("stages", []))))


def run_ranks(target: Target, stages: list[str], roots: list[Path], timeout: float,
              repeat: int, warmup: int, watch: Watcher | None, nproc: int) -> TargetRun:
    """The target as `nproc` processes launched as torchrun would (ranks.py), sharing one
    timeout: one rank that hangs or dies ends them all (the others would wait for it in their
    next collective). The display follows rank 0."""
    from .ranks import free_port, merge_ranks, rank_environment

    with tempfile.TemporaryDirectory(prefix="breaklint-confirm-") as scratch:
        port = free_port()
        processes, outputs, results = [], [], []
        for rank in range(nproc):
            request_path = Path(scratch) / f"request-{rank}.json"
            results.append(Path(scratch) / f"result-{rank}.json")
            request = {"path": str(target.path), "name": target.name, "line": target.line, "stages": stages,
                       "roots": [str(r) for r in roots], "repeat": repeat, "warmup": warmup,
                       "progress": str(Path(scratch) / f"status-{rank}.json")}
            request_path.write_text(json.dumps(request), encoding="utf-8")
            env = {**child_environment([str(target.path.parent)]), **rank_environment(rank, nproc, port)}
            output = open(Path(scratch) / f"output-{rank}.txt", "w+b")
            outputs.append(output)
            processes.append(subprocess.Popen(
                [sys.executable, "-m", "breaklint.confirm.worker", str(request_path), str(results[rank])],
                cwd=target.path.parent, env=env, stdin=subprocess.DEVNULL, stdout=output,
                stderr=subprocess.STDOUT, start_new_session=True))
        finished = _wait_ranks(processes, results, timeout, Path(scratch) / "status-0.json", watch)
        for process in processes:
            if process.poll() is None:
                kill_group(process)
        texts = []
        for output in outputs:
            output.seek(0)
            texts.append(output.read().decode("utf-8", "replace"))
            output.close()
        per_rank = [read_json(path) or {} for path in results]
        merged = merge_ranks(per_rank)
        if not finished:
            return TargetRun(target, merged, error=f"timed out after {timeout:.3g} s (one of {nproc} ranks did not finish)")
        for rank, (process, result) in enumerate(zip(processes, per_rank)):
            failed = result.get("error")
            if failed:
                return TargetRun(target, merged, error=f"rank {rank}: {failed['type']} in {failed['stage']}: {failed['message']}")
        for rank, (process, result) in enumerate(zip(processes, per_rank)):
            if not result.get("complete", False):
                return TargetRun(target, merged, error=f"rank {rank}: {describe_exit(process.returncode, texts[rank])}")
        return TargetRun(target, merged)
