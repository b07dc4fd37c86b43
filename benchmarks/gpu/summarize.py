"""Turn `breaklint confirm --format json` output into the committed Markdown results table.

    python benchmarks/gpu/summarize.py confirm.json [more.json ...] versions.txt > results.md

Several reports (one run's targets continued in another, after its --budget ran out) are
joined, the newest first: their targets in order (a target that several ran, from the first
report that has it), each static finding with the strongest status any run gave it (confirmed,
then not reproduced, then not reached), and the runtime-only findings, a place and rule from
the first report that has it (an older run's words for the same finding are left out).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path


STRENGTH = ("confirmed", "not reproduced", "not reached")


def joined(reports: list[dict]) -> dict:
    """One report of several runs: the targets that ran (a target another run measured is kept
    from that run), each finding at its strongest status, every runtime-only finding once."""
    ran: list[dict] = []
    for t in (t for r in reports for t in r["targets"]):
        if not (t["failure"] or "").startswith(("not run", "timed out")) and t["target"] not in {r["target"] for r in ran}:
            ran.append(t)
    findings: dict[tuple, dict] = {}
    for report in reports:
        for f in report["findings"]:
            key = (f["path"], f["start_line"], f["code"])
            if key not in findings or STRENGTH.index(f["status"]) < STRENGTH.index(findings[key]["status"]):
                findings[key] = f
    measured = {t["target"] for t in ran}
    runtime: dict[tuple, dict] = {}
    first: dict[tuple, int] = {}  # (path, line, code) -> the report it first came from
    for index, r in enumerate(reports):
        for f in r["runtime_only"]:
            if f["code"] == "BL006" and any(f"target {name} failed" in f["message"] for name in measured):
                continue
            if first.setdefault((f["path"], f["start_line"], f["code"]), index) == index:
                runtime.setdefault((f["path"], f["start_line"], f["code"], f["message"]), f)
    statuses = Counter(f["status"] for f in findings.values())
    summary = (f"{statuses['confirmed']} confirmed, {statuses['not reproduced']} not reproduced, "
               f"{statuses['not reached']} not reached, {len(runtime)} runtime-only; {len(ran)} targets")
    return {"targets": ran, "findings": list(findings.values()), "runtime_only": list(runtime.values()),
            "summary": summary if len(reports) > 1 else reports[0]["summary"]}


def main(*paths: str) -> None:
    *report_paths, versions_path = paths
    report = joined([json.loads(Path(p).read_text(encoding="utf-8")) for p in report_paths])
    print("# breaklint confirm on a GPU\n")
    print(f"Versions: {Path(versions_path).read_text(encoding='utf-8').strip()}\n")
    print("Command: `OUT=DIR bash benchmarks/gpu/run_real.sh examples` (also the last step of `programs` and `all`, and in "
          "`run_gpu.sh`), then `benchmarks/gpu/summarize.py`" +
          (f" joining {len(report_paths)} runs" if len(report_paths) > 1 else "") + "; the raw JSON: " +
          ", ".join(f"`{p}`" for p in report_paths) + "\n")
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
    main(*sys.argv[1:])
