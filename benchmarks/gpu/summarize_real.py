"""The committed tables of `breaklint confirm` on real models, from what run_real.sh wrote:

    python benchmarks/gpu/summarize_real.py MODELS_DIR GRAD_DIR > benchmarks/results/gpu/real_models.md

MODELS_DIR holds agreement.json (agreement.py: confirm's ladder and the independent timer in one
process) and the decode loop's decode_ladder.json (--ladder) and decode_timing.jsonl (the
program's own CUDA events) of one call; GRAD_DIR the same loop without torch.no_grad()
(decode_grad_ladder.json).
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


def paired(row: dict[str, Any]) -> tuple[str, bool | None]:
    """agreement.py's figure: the median over rounds of the two timers' ratio within a round."""
    difference = row.get("difference")
    if difference is None:
        return "-", None
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
             "| each round | spread of rounds: confirm, independent | independent outside the capture ms |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    agreed = compared = 0
    rows = rows_of(models / "agreement.json")
    eager = {name: row.get("confirm_ms") for name, _, stage, row in rows if stage == "eager"}
    for name, usage, stage, row in rows:
        ours, theirs = row.get("confirm_ms"), row.get("independent_ms")
        text, ok = paired(row) if "difference_of_medians" in row else agreement(ours, theirs)
        compared += ok is not None
        agreed += bool(ok)
        speedup = f"{eager[name] / ours:.2f}x" if eager.get(name) and ours else "-"
        rounds = ", ".join(f"{d * 100:+.0f}" for d in row.get("paired_differences", []))
        cells = [name, usage, stage, f"{ours:.3f}" if ours else "-", speedup, f"{theirs:.3f}" if theirs else "-",
                 text + mark(ok), f"{rounds} %" if rounds else "-",
                 f"{spread(row['confirm_rounds_ms'])}, {spread(row['independent_rounds_ms'])}" if ours else "-",
                 f"{row['independent_outside_capture_ms']:.3f}" if ours else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines, agreed, compared


def missing_rows(models: Path, wanted: tuple[str, ...], stages: tuple[str, ...]) -> list[str]:
    """The model stages agreement.py did not reach (its process ran out of time)."""
    done = {(name, stage) for name, _, stage, _ in rows_of(models / "agreement.json")}
    return [f"{name} {stage}" for name in wanted for stage in stages if (name, stage) not in done]


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


MODELS = ("resnet50_bs1", "gpt2_prefill", "llama_8_layers", "gpt2_training_step")
STAGES = ("eager", "dynamo", "aot_eager", "inductor", "cudagraphs")


def main(models: str, grad: str) -> None:
    here = Path(models)
    versions = (here / "versions.txt").read_text(encoding="utf-8").strip()
    run = json.loads((here / "agreement.json").read_text(encoding="utf-8"))
    table, agreed, compared = models_table(here)
    decode, decode_agreed, decode_compared = ladder_table(here)
    missing = missing_rows(here, MODELS, STAGES)
    overhead = run.get("hook_overhead_ms")
    way = ("alternating call by call (an independent call after each of confirm's timed calls)"
           if run.get("interleaved") == "by call" else
           f"alternating round by round, A B then B A, the independent rounds warmed up as confirm's "
           f"({run['independent_warmup']} calls and at least {run['independent_warm_s']:g} s)")
    out = ["# breaklint confirm on real models (GPU)", "",
           f"Versions: {versions}. Random weights, nothing downloaded. Made by "
           f"`benchmarks/gpu/run_real.sh` and `benchmarks/gpu/summarize_real.py` from `real/{here.name}` "
           f"(the raw JSON; `real/README.md` says what each run was).", "",
           "## The ladder of four models, beside an independent timer (`benchmarks/gpu/agreement.py`)", "",
           "One process, one call of the GPU machine. Per model and stage, confirm's own code compiles and times "
           "the stage (`worker.run_stage`: the usage wrapper, the first call, the capture of compiler events, "
           f"`median_ms`: at least 20 calls and 0.5 s of warm-up, then {run['calls']} calls, each between CUDA "
           "events with a synchronize after it, the median) beside an independent timer written in agreement.py "
           "(the same compiled callable called by its own `no_grad` or training step, each call alone between "
           f"CUDA events), {way}, in {run['rounds']} rounds. confirm − independent is the median over the rounds "
           "of the two timers' ratio within a round; each round's ratio is beside it. The spread is the largest "
           "round over the smallest: how much the machine's speed moved during the stage. The last column is one "
           "more independent round after the stage, outside confirm's capture of compiler events.", "",
           *table, "", f"Within {TOLERANCE:.0%}: {agreed} of {compared} rows" +
           (f"; not reached before agreement.py's time-out (400 s): {', '.join(missing)}." if missing else "."), ""]
    if overhead:
        out += [f"What --ladder's own timer adds to a call, as a timer around it sees it (`hook_overhead_ms`: CUDA "
                f"events around a small kernel, bare {overhead['bare']:.4f} ms and through the hook's wrapper "
                f"{overhead['wrapped']:.4f} ms): {overhead['added'] * 1000:.0f} µs.", ""]
    out += ["## What Inductor made", "", *kernels_table(here), "",
            "## Greedy decoding with a static KV cache (`breaklint confirm --ladder -- python decode_static_cache.py`)",
            "", "The program unchanged, once per stage; each of its 128 decode steps is one call of the compiled "
            "step. The ladder's timing of those calls (the whole call of the compiled module) beside the program's "
            f"own CUDA events around the same calls (`--plot` drew `real/{here.name}/decode_ladder.png`):",
            "", *decode, "", f"Within {TOLERANCE:.0%}: {decode_agreed} of {decode_compared} rows.", "",
            f"## The same loop without `torch.no_grad()` (`--with-grad`, `real/{Path(grad).name}`)", "",
            *grad_lines(Path(grad)), ""]
    print("\n".join(out))


if __name__ == "__main__":
    main(*sys.argv[1:3])
