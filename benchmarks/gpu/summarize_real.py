"""The committed tables of `breaklint confirm` on real models, from what run_real.sh wrote:

    python benchmarks/gpu/summarize_real.py MODELS_DIR RERUN_DIR GRAD_DIR > benchmarks/results/gpu/real_models.md

MODELS_DIR holds agreement.json (agreement.py: confirm's ladder and the independent timer in one
process) and the decode loop's decode_ladder.json (--ladder) and decode_timing.jsonl (the
program's own CUDA events) of one call; RERUN_DIR agreement.py's rerun_*.json of the rows outside
the tolerance, run again; GRAD_DIR the same loop without torch.no_grad() (decode_grad_ladder.json).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

TOLERANCE = 0.10  # confirm's median against the independent one


def agreement(ours: float | None, theirs: float | None) -> tuple[str, bool | None]:
    if not ours or not theirs:
        return "-", None
    difference = ours / theirs - 1
    return f"{difference * 100:+.1f} %", abs(difference) <= TOLERANCE


def mark(ok: bool | None) -> str:
    return "" if ok is None else " ✓" if ok else " ✗"


def rows_of(path: Path) -> list[tuple[str, str, str, dict[str, Any]]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [(name, model["usage"], stage, row) for name, model in data["models"].items()
            for stage, row in model["stages"].items()]


def spread(values: list[float]) -> str:
    return f"{(max(values) / min(values) - 1) * 100:.0f} %"


def models_table(models: Path) -> tuple[list[str], int, int]:
    lines = ["| model | usage | stage | confirm ms | vs eager | independent ms | confirm − independent "
             "| spread of rounds: confirm, independent | independent outside the capture ms |",
             "|---|---|---|---|---|---|---|---|---|"]
    agreed = compared = 0
    rows = rows_of(models / "agreement.json")
    eager = {name: row.get("confirm_ms") for name, _, stage, row in rows if stage == "eager"}
    for name, usage, stage, row in rows:
        ours, theirs = row.get("confirm_ms"), row.get("independent_ms")
        text, ok = agreement(ours, theirs)
        compared += ok is not None
        agreed += bool(ok)
        speedup = f"{eager[name] / ours:.2f}x" if eager.get(name) and ours else "-"
        cells = [name, usage, stage, f"{ours:.3f}" if ours else "-", speedup, f"{theirs:.3f}" if theirs else "-",
                 text + mark(ok),
                 f"{spread(row['confirm_rounds_ms'])}, {spread(row['independent_rounds_ms'])}" if ours else "-",
                 f"{row['independent_outside_capture_ms']:.3f}" if ours else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines, agreed, compared


def rerun_table(rerun: Path) -> tuple[list[str], int, int]:
    lines = ["| model | stage | confirm ms | independent ms | confirm − independent | rounds, confirm | rounds, independent |",
             "|---|---|---|---|---|---|---|"]
    agreed = compared = 0
    for path in sorted(rerun.glob("rerun_*.json")):
        for name, _, stage, row in rows_of(path):
            text, ok = agreement(row.get("confirm_ms"), row.get("independent_ms"))
            compared += ok is not None
            agreed += bool(ok)
            lines.append(f"| {name} | {stage} | {row['confirm_ms']:.3f} | {row['independent_ms']:.3f} | {text}{mark(ok)} | "
                         f"{', '.join(f'{v:.2f}' for v in row['confirm_rounds_ms'])} | "
                         f"{', '.join(f'{v:.2f}' for v in row['independent_rounds_ms'])} |")
    return lines, agreed, compared


def kernels_table(models: Path) -> list[str]:
    lines = ["| model | Triton kernels | extern calls | extern by design (not fallbacks) | ATen fallbacks (BL490) |",
             "|---|---|---|---|---|"]
    for name, _, stage, row in rows_of(models / "agreement.json"):
        k = row["record"].get("kernels") if stage == "inductor" else None
        if k:
            lines.append(f"| {name} | {k['triton']} | {k['extern']} | "
                         f"{', '.join(k.get('extern_ops', [])) or '-'} | {', '.join(k['aten_fallbacks']) or 'none'} |")
    return lines


def ladder_table(ladder: Path) -> tuple[list[str], int, int]:
    report = json.loads((ladder / "decode_ladder.json").read_text(encoding="utf-8"))
    own = {json.loads(line)["stage"]: json.loads(line)
           for line in (ladder / "decode_timing.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()}
    lines = ["| stage | step median ms (--ladder) | vs eager (time in the compiled step) | step median ms (the program's own CUDA events) | ladder − program |",
             "|---|---|---|---|---|"]
    agreed = compared = 0
    for row in report["program_ladder"]:
        median = next(iter(row["callables"].values()))["median_ms"] if row.get("callables") else None
        theirs = own.get(row["stage"], {}).get("step_ms_median")
        text, ok = agreement(median, theirs)
        compared += ok is not None
        agreed += bool(ok)
        lines.append(f"| {row['stage']} | {median:.3f} | {row['speedup']:.2f}x | {theirs:.3f} | "
                     f"{text}{mark(ok)} |")
    return lines, agreed, compared


def grad_lines(grad: Path) -> list[str]:
    report = json.loads((grad / "decode_grad_ladder.json").read_text(encoding="utf-8"))
    lines = ["| stage | step median ms | calls not replayed by CUDA graph trees |", "|---|---|---|"]
    for row in report["program_ladder"]:
        median = next(iter(row["callables"].values()))["median_ms"]
        unreplayed = row.get("cudagraph_unreplayed", row.get("cudagraph_recordings"))
        lines.append(f"| {row['stage']} | {median:.3f} | {unreplayed if row['stage'] == 'cudagraphs' else '-'} of {row['calls']} |")
    lines.append("")
    for finding in report["findings"]:
        lines.append(f"- `{finding['path']}:{finding['start_line']}` {finding['code']} **{finding['status']}**: "
                     f"{finding['evidence']}")
    for finding in report["runtime_only"]:
        lines.append(f"- `{finding['path']}:{finding['start_line']}` {finding['code']} runtime-only: {finding['message']}")
    return lines


def main(models: str, rerun: str, grad: str) -> None:
    versions = (Path(models) / "versions.txt").read_text(encoding="utf-8").strip()
    run = json.loads((Path(models) / "agreement.json").read_text(encoding="utf-8"))
    run.setdefault("independent_warmup", 3)  # real/5-models predates the option: 3 calls then
    again = json.loads(next(Path(rerun).glob("rerun_*.json")).read_text(encoding="utf-8"))
    table, agreed, compared = models_table(Path(models))
    rerun_lines, rerun_agreed, rerun_compared = rerun_table(Path(rerun))
    decode, decode_agreed, decode_compared = ladder_table(Path(models))
    out = ["# breaklint confirm on real models (GPU)", "",
           f"Versions: {versions}. Random weights, nothing downloaded. Made by "
           "`benchmarks/gpu/run_real.sh` and `benchmarks/gpu/summarize_real.py`; the raw JSON is beside this file "
           "(`real/`, README there).", "",
           "## The ladder of four models, beside an independent timer (`benchmarks/gpu/agreement.py`)", "",
           "One process per call of the GPU machine. Per model and stage, confirm's own code compiles and times "
           "the stage (`worker.run_stage`: the usage wrapper, the first call, the capture of compiler events, "
           f"`median_ms`: at least 20 calls and 0.5 s of warm-up, then {run['calls']} calls, each between CUDA "
           "events with a synchronize after it, the median). Its timer alternates with an independent one written "
           "in agreement.py (the same compiled callable called by its own `no_grad` or training step, "
           f"{run['independent_warmup']} warm-up calls, then {run['calls']} calls each alone between CUDA events, "
           f"the median) for {run['rounds']} rounds, A B then B A; each figure is the median of its timer's "
           "rounds. The spread is the largest round over the smallest: how much the machine's speed moved "
           "during the stage. The last column is one more independent round after the stage, outside confirm's "
           "capture of compiler events.", "", *table, "",
           f"Within {TOLERANCE:.0%}: {agreed} of {compared} rows.", "",
           f"The {compared - agreed} rows outside it, run again in a later call of the machine "
           f"({again['rounds']} rounds, the independent timer warmed up as confirm's: "
           f"{again['independent_warmup']} calls and {again['independent_warm_s']:g} s):", "",
           *rerun_lines, "", f"Within {TOLERANCE:.0%}: {rerun_agreed} of {rerun_compared} rows.", "",
           "## What Inductor made", "", *kernels_table(Path(models)), "",
           "## Greedy decoding with a static KV cache (`breaklint confirm --ladder -- python decode_static_cache.py`)",
           "", "The program unchanged, once per stage; each of its 128 decode steps is one call of the compiled "
           "step. The ladder's timing of those calls beside the program's own CUDA events around the same calls "
           "(`--plot` drew `real/5-models/decode_ladder.png`):",
           "", *decode, "", f"Within {TOLERANCE:.0%}: {decode_agreed} of {decode_compared} rows.", "",
           "## The same loop without `torch.no_grad()` (`--with-grad`)", "", *grad_lines(Path(grad)), ""]
    print("\n".join(out))


if __name__ == "__main__":
    main(*sys.argv[1:4])
