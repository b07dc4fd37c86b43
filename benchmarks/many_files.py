"""A tree of many small files, checked with `--jobs`: it must finish, with every finding.

    python benchmarks/many_files.py                     # 100,000 files, --jobs 2
    python benchmarks/many_files.py --files 20000 --jobs 4 --keep /tmp/tree

Every 100th file holds a compiled function with one `.item()` (BL101), so the region walk and the
rules run too. The check runs `--no-cache` in a fresh process; while it runs, the memory mappings
of breaklint's processes are counted from /proc every 0.2 s (Linux): the kernel refuses a process
more than vm.max_map_count of them (65,530 by default), and a run that kept one per file read
died there. Prints: files, exit code, findings found / expected, wall time, the peak RSS of the
largest process and the most mappings any one process held.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PLAIN = "import math\n\n\ndef area_{n}(r):\n    return math.pi * r * r\n"
COMPILED = "import torch\n\n\n@torch.compile\ndef step_{n}(x):\n    return x.sum().item()\n"


def build(root: Path, files: int) -> int:
    """`files` modules, 100 a package; returns how many BL101 there are to find."""
    expected = 0
    for n in range(files):
        package = root / f"pkg{n // 100:04d}"
        if n % 100 == 0:
            package.mkdir(parents=True, exist_ok=True)
        compiled = n % 100 == 42
        expected += compiled
        (package / f"mod{n:06d}.py").write_text((COMPILED if compiled else PLAIN).format(n=n), encoding="utf-8")
    return expected


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", encoding="ascii") as children:
                    todo.extend(int(child) for child in children.read().split())
        except OSError:
            continue
    return found


def _mappings(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/maps", encoding="ascii", errors="replace") as maps:
            return sum(1 for _ in maps)
    except OSError:
        return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="build the tree here and leave it (default: a temp folder)")
    args = parser.parse_args()
    scratch = None if args.keep else tempfile.TemporaryDirectory(prefix="breaklint-many-")
    root = args.keep or Path(scratch.name)  # type: ignore[union-attr]
    root.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    expected = build(root, args.files)
    print(f"built {args.files} files in {time.perf_counter() - started:.1f} s under {root}")
    report = root.parent / f"{root.name}-report.json"
    command = [sys.executable, "-m", "breaklint", "check", "--no-cache", "--jobs", str(args.jobs),
               "--format", "json", "-o", str(report), "."]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=root, stderr=subprocess.PIPE, text=True)
    most_maps = 0
    while process.poll() is None:
        most_maps = max([most_maps, *(_mappings(pid) for pid in _descendants(process.pid))])
        time.sleep(0.2)
    seconds = time.perf_counter() - started
    stderr = process.stderr.read() if process.stderr else ""
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    found = sum(1 for r in json.loads(report.read_text(encoding="utf-8")) if r["code"] == "BL101") \
        if report.exists() else 0
    print(f"files {args.files}  jobs {args.jobs}  exit {process.returncode}  BL101 {found}/{expected}  "
          f"{seconds:.1f} s  peak RSS {peak_mib:.0f} MiB  most mappings in one process {most_maps}")
    if stderr.strip():
        print("stderr:", stderr.strip()[-2000:])
    report.unlink(missing_ok=True)
    if scratch is not None:
        scratch.cleanup()
    sys.exit(0 if process.returncode == 1 and found == expected else 1)


if __name__ == "__main__":
    main()
