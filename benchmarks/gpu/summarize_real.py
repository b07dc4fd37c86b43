"""The committed tables of `breaklint confirm` on real models, from what run_real.sh wrote:

    python benchmarks/gpu/summarize_real.py MODELS_DIR LADDER_DIR GRAD_DIR > benchmarks/results/gpu/real_models.md

MODELS_DIR holds real_models.json (confirm) and independent.json (independent.py) of one run;
LADDER_DIR the decode loop's decode_ladder.json (--ladder) and decode_timing.jsonl (the program's
own CUDA events); GRAD_DIR the same loop without torch.no_grad() (decode_grad_ladder.json).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TOLERANCE = 0.10  # confirm's median against the independent one


def agreement(ours: float | None, theirs: float | None) -> tuple[str, bool | None]:
    if not ours or not theirs:
        return "-", None
    difference = ours / theirs - 1
    return f"{difference * 100:+.1f} %", abs(difference) <= TOLERANCE


def models_table(models: Path) -> tuple[list[str], int, int]:
    report = json.loads((models / "real_models.json").read_text(encoding="utf-8"))
    independent = json.loads((models / "independent.json").read_text(encoding="utf-8"))["models"]
    lines = ["| model | usage | stage | confirm median ms | vs eager | independent median ms (2nd round) | loop mean ms | confirm − independent |",
             "|---|---|---|---|---|---|---|---|"]
    agreed = compared = 0
    for target in report["targets"]:
        name = target["target"].split("::")[1]
        for row in target["ladder"]:
            other = independent.get(name, {}).get(row["stage"], {})
            text, ok = agreement(row["median_ms"], other.get("median_ms"))
            compared += ok is not None
            agreed += bool(ok)
            cells = [name, target["usage"], row["stage"], f"{row['median_ms']:.3f}" if row["median_ms"] else "-",
                     f"{row['speedup']:.2f}x" if row["speedup"] else "-",
                     f"{other['median_ms']:.3f} ({other['median_ms_again']:.3f})" if "median_ms_again" in other
                     else f"{other.get('median_ms', 0):.3f}",
                     f"{other['loop_mean_ms']:.3f}" if "loop_mean_ms" in other else "-",
                     text + ("" if ok is None else " ✓" if ok else " ✗")]
            lines.append("| " + " | ".join(cells) + " |")
        pitfall = independent.get(name, {}).get("cudagraphs_grad_no_backward")
        if pitfall:
            lines.append(f"| {name} | grad enabled, no backward | cudagraphs | - | - | {pitfall['median_ms']:.3f} | "
                         f"{pitfall['loop_mean_ms']:.3f} | the pitfall confirm used to measure |")
    return lines, agreed, compared


def kernels_table(models: Path) -> list[str]:
    report = json.loads((models / "real_models.json").read_text(encoding="utf-8"))
    lines = ["| model | Triton kernels | extern calls | extern by design (not fallbacks) | ATen fallbacks (BL490) |",
             "|---|---|---|---|---|"]
    for target in report["targets"]:
        row = next((r for r in target["ladder"] if r["stage"] == "inductor" and r["kernels"]), None)
        if row:
            k = row["kernels"]
            lines.append(f"| {target['target'].split('::')[1]} | {k['triton']} | {k['extern']} | "
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
                     f"{text}{'' if ok is None else ' ✓' if ok else ' ✗'} |")
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


def main(models: str, ladder: str, grad: str) -> None:
    versions = (Path(models) / "versions.txt").read_text(encoding="utf-8").strip()
    table, agreed, compared = models_table(Path(models))
    decode, decode_agreed, decode_compared = ladder_table(Path(ladder))
    out = ["# breaklint confirm on real models (GPU)", "",
           f"Versions: {versions}. Random weights, nothing downloaded. Made by "
           "`benchmarks/gpu/run_real.sh` and `benchmarks/gpu/summarize_real.py`; the raw JSON is beside this file "
           "(`real/`).", "",
           "## The ladder of four models (`breaklint confirm benchmarks/gpu/real_models.py`)", "",
           "confirm's median of 100 calls after a warm-up, CUDA events around each call; beside it "
           "`independent.py` in the same run: its own loop, the median of 100 calls twice, and the mean of 100 "
           "back-to-back calls.", "", *table, "",
           f"Within {TOLERANCE:.0%}: {agreed} of {compared} rows.", "",
           "## What Inductor made", "", *kernels_table(Path(models)), "",
           "## Greedy decoding with a static KV cache (`breaklint confirm --ladder -- python decode_static_cache.py`)",
           "", "The program unchanged, once per stage; each of its 128 decode steps is one call of the compiled "
           "step. The ladder's timing of those calls beside the program's own CUDA events around the same calls:",
           "", *decode, "", f"Within {TOLERANCE:.0%}: {decode_agreed} of {decode_compared} rows.", "",
           "## The same loop without `torch.no_grad()` (`--with-grad`)", "", *grad_lines(Path(grad)), ""]
    print("\n".join(out))


if __name__ == "__main__":
    main(*sys.argv[1:4])
