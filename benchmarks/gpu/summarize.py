"""Turn `breaklint confirm --format json` output into the committed Markdown results table.

    python benchmarks/gpu/summarize.py confirm.json versions.txt > results.md
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path


def main(report_path: str, versions_path: str) -> None:
    report = json.loads(Path(report_path).read_text(encoding="utf-8"))
    print("# breaklint confirm on a GPU\n")
    print(f"Versions: {Path(versions_path).read_text(encoding='utf-8').strip()}\n")
    print("Command: `OUT=benchmarks/results/gpu bash benchmarks/gpu/run_gpu.sh`\n")
    for target in report["targets"]:
        print(f"## {target['target']} ({target['device']})\n")
        if target["failure"]:
            print(f"Failed: {target['failure']}\n")
        print("| stage | graphs | breaks | recompiles | probe recompiles | cudagraph skips | first call s | median ms | vs eager | kernels |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for row in target["ladder"]:
            if row["skipped"] or (row["error"] and row["median_ms"] is None):
                print(f"| {row['stage']} | {row['skipped'] or 'error: ' + row['error'][:80]} |||||||||")
                continue
            kernels = row["kernels"] or {}
            made = ", ".join(f"{kernels[k]} {k}" for k in ("triton", "cpp", "extern") if kernels.get(k))
            cells = [row["stage"], row["graphs"], row["graph_breaks"], row["recompiles"], row["probe_recompiles"],
                     row["cudagraph_skips"], f"{row['first_call_s']:.2f}" if row["first_call_s"] else None,
                     f"{row['median_ms']:.3f}", f"{row['speedup']:.2f}x" if row["speedup"] else None, made or None]
            print("| " + " | ".join("-" if c is None else str(c) for c in cells) + " |")
        print()
    statuses = Counter(f["status"] for f in report["findings"])
    print("## Static findings joined with the runs\n")
    print("| status | count |\n|---|---|")
    for status in ("confirmed", "not reproduced", "not reached"):
        print(f"| {status} | {statuses.get(status, 0)} |")
    print(f"| runtime-only | {len(report['runtime_only'])} |\n")
    print("| finding | status | evidence |\n|---|---|---|")
    for f in report["findings"]:
        print(f"| {f['path']}:{f['start_line']} {f['code']} | {f['status']} | {f['evidence'] or '-'} |")
    print("\n| runtime-only | stage | message |\n|---|---|---|")
    for f in report["runtime_only"]:
        print(f"| {f['path']}:{f['start_line']} {f['code']} | {f['stage']} | {f['message'][:160]} |")
    print(f"\n{report['summary']}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
