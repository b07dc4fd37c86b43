"""How long `breaklint check` takes on the deeply nested expressions of
tests/robustness/test_bad_files.py (the test holds what is reported; the time is measured here,
since no test may depend on wall time).

    python benchmarks/deep_expressions.py --repeat 3

Each case is the test's file (`y = <expression>` in a compiled function, beside a file with one
finding), checked by the installed `breaklint` in a fresh process with `--no-cache`; it prints
the minimum and median wall time of the repeats per case, and the machine's load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from robustness.support import BAD, breaklint_command  # noqa: E402
from robustness.test_bad_files import DEEP  # noqa: E402


def measure(kind: str, repeat: int) -> list[float]:
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder)
        (tree / "good.py").write_text(BAD, encoding="utf-8")
        (tree / "deep.py").write_text(
            f"import torch\n\n@torch.compile\ndef f(x, g):\n    y = {DEEP[kind]}\n    return x.sum().item()\n",
            encoding="utf-8")
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            subprocess.run([*breaklint_command(), "check", "--no-cache", "--format", "json", "."], cwd=tree,
                           capture_output=True, check=False)
            times.append(time.perf_counter() - started)
        return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'case':<12} {'min s':>7} {'median s':>9}")
    for kind in DEEP:
        times = measure(kind, args.repeat)
        print(f"{kind:<12} {min(times):7.2f} {statistics.median(times):9.2f}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
