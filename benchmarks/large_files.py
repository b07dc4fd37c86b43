"""Large valid files (under the 8 MiB cap): time and peak memory per byte of source.

    python benchmarks/large_files.py              # every case, in its own folder, --no-cache
    python benchmarks/large_files.py --jobs 2

Cases (issue 18, item 6): a 7 MiB one-line list; a million short lines; each of them beside a
compiled function (so the file is one the rules visit); and two such files checked together.
Each check runs in a fresh process (`breaklint check --no-cache`); peak RSS is the largest
process's (workers are separate processes), read from `getrusage(RUSAGE_CHILDREN)` by a fresh
wrapper process per case. Prints one Markdown row per case: bytes, seconds, peak MB, bytes of
memory per byte of source, exit code and findings.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

MIB = 1024 * 1024
COMPILED = "import torch\n\n\n@torch.compile\ndef step(x):\n    return x.sum().item()\n\n\n"


def one_line_list(size: int) -> str:
    parts, total, n = [], 0, 0
    while total < size:
        item = f"{n}, "
        parts.append(item)
        total += len(item)
        n += 1
    return "DATA = [" + "".join(parts) + "]\n"


CASES = {
    "7 MiB one-line list": lambda: {"data.py": one_line_list(7 * MIB)},
    "1e6 short lines": lambda: {"lines.py": "a = 1\n" * 1_000_000},
    "7 MiB list beside a compiled function": lambda: {"data.py": COMPILED + one_line_list(7 * MIB)},
    "1e6 lines beside a compiled function": lambda: {"lines.py": COMPILED + "a = 1\n" * 1_000_000},
    "both of the last two": lambda: {"data.py": COMPILED + one_line_list(7 * MIB),
                                     "lines.py": COMPILED + "a = 1\n" * 1_000_000},
}

_MEASURE = """
import resource, subprocess, sys, time
started = time.perf_counter()
run = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(run.returncode, time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(run.stdout.count('"code"'))
"""


def measure(root: Path, jobs: int) -> tuple[int, float, int, int]:
    command = [sys.executable, "-c", _MEASURE, sys.executable, "-m", "breaklint", "check", "--no-cache",
               "--format", "json", "--jobs", str(jobs), str(root)]
    first, second = subprocess.run(command, capture_output=True, text=True, check=True).stdout.split("\n")[:2]
    code, seconds, peak_kib = first.split()
    return int(code), float(seconds), int(peak_kib) * 1024, int(second)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    print("| case | source MB | s | peak MB | bytes per byte | exit | findings |")
    print("|---|---|---|---|---|---|---|")
    for name, make in CASES.items():
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch)
            size = 0
            for file_name, text in make().items():
                (root / file_name).write_text(text, encoding="utf-8")
                size += len(text)
            code, seconds, peak, found = measure(root, args.jobs)
        print(f"| {name} | {size / MIB:.1f} | {seconds:.1f} | {peak / MIB:.0f} | {peak / size:.0f} | {code} | {found} |",
              flush=True)


if __name__ == "__main__":
    main()
