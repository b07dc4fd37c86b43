"""Peak RSS of each process of one `breaklint check` (the parent and every worker), side by side.

    python benchmarks/process_rss.py DIR [--jobs 2] [--python PY] [--env K=V ...] [--repeat 1]
    python benchmarks/process_rss.py DIR --python .venv/bin/python --python /tmp/base/.venv/bin/python

Issue #13's memory target is per process (the largest of them at most 600 MB), and a worker
forked from the parent starts with what the parent holds, so the largest process alone does not
say where the memory is. This polls the high-water mark (`VmHWM` in /proc/PID/status) of the
check and of every process it starts, every 50 ms, and also reads the kernel's own figure for the
largest of them (`getrusage(RUSAGE_CHILDREN)`: no poll can miss it). With several `--python`,
they run alternating (A B A B ...), each with `--no-cache`, on the same tree; with `--fill-cache`,
each instead fills an empty cache (a user's first run: the main process also writes the packs),
run from a fresh folder where the cache lands. Linux only.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except OSError:  # gone meanwhile
            continue
        tree.setdefault(int(fields[1]), []).append(int(entry))
    return tree


def _hwm_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def measure(command: list[str], env: dict[str, str], poll: float = 0.05,
            cwd: Path | None = None) -> tuple[float, int, dict[int, int], int]:
    """(wall s, exit code, {pid: peak KiB} as polled with the check's own pid first, the
    kernel's peak KiB of the largest process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    peaks: dict[int, int] = {process.pid: 0}
    while process.poll() is None:
        tree = _children()
        todo = [process.pid]
        while todo:
            pid = todo.pop()
            hwm = _hwm_kib(pid)
            if hwm is not None:
                peaks[pid] = max(peaks.get(pid, 0), hwm)
            todo.extend(tree.get(pid, ()))
        time.sleep(poll)
    wall = time.perf_counter() - started
    if process.returncode not in (0, 1):
        sys.stderr.write(process.stderr.read().decode(errors="replace")[-3000:])  # type: ignore[union-attr]
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of the children only grows: a run below an earlier run's peak reads 0 here.
    return wall, process.returncode, peaks, largest if largest > before else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--python", action="append", help="the interpreter to run breaklint with (repeatable)")
    parser.add_argument("--env", action="append", default=[], help="K=V for every run (e.g. PYTHONPATH=...)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--fill-cache", action="store_true", help="fill an empty cache instead of --no-cache")
    parser.add_argument("--json", type=Path, help="a folder: each run's findings as JSON there (to compare them)")
    args = parser.parse_args()
    pythons = args.python or [sys.executable]
    env = dict(os.environ)
    env.update(item.split("=", 1) for item in args.env)
    for round_ in range(args.repeat):
        for python in pythons:
            command = [python, "-m", "breaklint", "check", str(args.tree.resolve()), "-q", "--exit-zero",
                       "--jobs", str(args.jobs)]
            # Always from an empty folder: `python -m` puts the working directory first on the
            # path, so run from a checkout it would import that checkout's breaklint whatever
            # `--env PYTHONPATH=` names (an A/B run would compare a tree with itself).
            cwd = Path(tempfile.mkdtemp(prefix="process-rss-"))
            if not args.fill_cache:
                command.append("--no-cache")
            if args.json is not None:
                args.json.mkdir(parents=True, exist_ok=True)
                command += ["--output-format", "json", "--output-file",
                            str((args.json / f"{pythons.index(python)}-jobs{args.jobs}-{round_ + 1}.json").resolve())]
            wall, code, peaks, kernel = measure(command, env, cwd=cwd)
            shutil.rmtree(cwd, ignore_errors=True)
            parent, *workers = peaks.values()
            shown = ", ".join(f"{kib / 1024:.0f}" for kib in sorted(workers, reverse=True)[:8])
            print(f"[{round_ + 1}] {python} --jobs {args.jobs}: exit {code}, {wall:.1f} s, load "
                  f"{os.getloadavg()[0]:.2f}; parent {parent / 1024:.0f} MB, workers (largest first) [{shown}] MB; "
                  f"largest process (kernel) {kernel / 1024:.0f} MB", flush=True)


if __name__ == "__main__":
    main()
