"""The stage ladder: what each stage of torch.compile bought, and where breaks gave it back.
Text, JSON records and an optional picture (matplotlib, imported only when asked for)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .stages import STAGES

STAGE_TITLES = {stage.name: stage.title for stage in STAGES}
HEADER = f" {'stage':<18} {'graphs':>6} {'breaks':>6} {'recompiles':>10} {'cudagraph skips':>15} {'median ms':>10} {'vs eager':>9}"


def _cell(value: Any, width: int) -> str:
    return f"{'-' if value is None else value:>{width}}"


def ladder_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One record per stage run, with the speed-up over eager where both were timed."""
    stages = result.get("stages", [])
    eager = next((s.get("median_ms") for s in stages if s["stage"] == "eager"), None)
    rows = []
    for stage in stages:
        median = stage.get("median_ms")
        compiled = stage["stage"] != "eager"
        rows.append({
            "stage": stage["stage"],
            "graphs": stage.get("graphs") if compiled else None,
            "graph_breaks": stage.get("graph_breaks") if compiled else None,
            "recompiles": stage.get("recompiles") if compiled else None,
            "cudagraph_skips": stage.get("cudagraph_skips") if stage["stage"] == "cudagraphs" else None,
            "cudagraph_unreplayed": stage.get("cudagraph_unreplayed") if stage["stage"] == "cudagraphs" else None,
            # ... per graph of the trees (BL591 counts per graph) and the trees' reasons to re-record
            "cudagraph_unreplayed_by_function": stage.get("cudagraph_unreplayed_by_function")
            if stage["stage"] == "cudagraphs" else None,
            "cudagraph_rerecord_reasons": stage.get("cudagraph_rerecord_reasons") if stage["stage"] == "cudagraphs" else None,
            "median_ms": median,
            "speedup": (eager / median) if eager and median else None,
            "first_call_s": stage.get("first_call_s"),
            "probe_recompiles": stage.get("probe_recompiles"),
            "kernels": stage.get("kernels"),
            "compile_times_us": stage.get("compile_times_us"),
            "skipped": stage.get("skipped"),
            "error": (stage.get("error") or {}).get("message"),
        })
    return rows


def render_ranks(result: dict[str, Any]) -> list[str]:
    """Under `--nproc`: the launch, each stage's training step by phase (rank 0), and the stages
    whose graphs, breaks or recompiles differ between ranks."""
    from .ranks import differing_stages

    launch = result["distributed"]
    ranks = f"{launch['world_size']} ranks" if launch["world_size"] != 1 else "1 rank"
    lines = [f" {ranks} ({launch['backend']}); the ladder is rank 0's"]
    for stage in result.get("stages", []):
        phases = stage.get("phases_ms")
        if stage.get("ddp_subgraphs"):
            lines.append(f" {STAGE_TITLES.get(stage['stage'], stage['stage']):<18} DDPOptimizer cut each graph it got at DDP's buckets: "
                         + " + ".join(map(str, stage["ddp_subgraphs"])) + " subgraphs (recompiles included)")
        if not phases:
            continue
        parts = [f"{name.replace('_', ' ')} {phases[name]:.3f}" for name in ("forward", "backward", "optimizer")
                 if phases.get(name) is not None]
        if phases.get("exposed_communication") is not None:
            parts.append(f"all-reduce not hidden by the backward {phases['exposed_communication']:.3f}"
                         f" (backward without it {phases['backward_no_sync']:.3f})")
        lines.append(f" {STAGE_TITLES.get(stage['stage'], stage['stage']):<18} step ms: " + ", ".join(parts))
    return lines + differing_stages(result)


def render_ladder(result: dict[str, Any]) -> str:
    lines = [HEADER]
    for row in ladder_rows(result):
        title = STAGE_TITLES.get(row["stage"], row["stage"])
        if row["skipped"]:
            lines.append(f" {title:<18} skipped: {row['skipped']}")
            continue
        if row["error"] and row["median_ms"] is None:
            lines.append(f" {title:<18} error: {row['error'].splitlines()[0][:90]}")
            continue
        median = f"{row['median_ms']:.3f}" if row["median_ms"] is not None else None
        speedup = f"{row['speedup']:.2f}x" if row["speedup"] is not None else None
        lines.append(
            f" {title:<18} {_cell(row['graphs'], 6)} {_cell(row['graph_breaks'], 6)} "
            f"{_cell(row['recompiles'], 10)} {_cell(row['cudagraph_skips'], 15)} {_cell(median, 10)} {_cell(speedup, 9)}"
        )
    for row in ladder_rows(result):
        kernels = row["kernels"]
        if kernels:
            made = ", ".join(f"{kernels[k]} {label}" for k, label in
                             (("triton", "Triton kernels"), ("cpp", "C++ kernels"), ("extern", "extern calls")) if kernels[k])
            fallbacks = ", ".join(kernels["aten_fallbacks"]) or "none"
            by_design = f" (extern by design: {', '.join(kernels['extern_ops'])})" if kernels.get("extern_ops") else ""
            lines.append(f" {STAGE_TITLES[row['stage']]} made: {made or 'no kernels'}{by_design}; "
                         f"ATen fallbacks: {fallbacks}")
        if row["probe_recompiles"]:
            lines.append(f" {STAGE_TITLES[row['stage']]}: the recompile probe (other inputs) recompiled "
                         f"{row['probe_recompiles']} time(s)")
    return "\n".join(lines)


PROGRAM_HEADER = (f" {'stage':<18} {'graphs':>6} {'breaks':>6} {'recompiles':>10} {'cudagraph skips':>15} "
                  f"{'calls':>7} {'first calls s':>13} {'compiled ms':>12} {'vs eager':>9} {'program s':>9}")


def render_program_ladder(records: list[dict[str, Any]]) -> str:
    """`--ladder`: per stage, the time the program spent in its compiled callables (every call
    but each callable's first, which compiles), and the speed-up of that over eager."""
    lines = [PROGRAM_HEADER]
    for row in records:
        title = STAGE_TITLES.get(row["stage"], row["stage"])
        if row.get("skipped"):
            lines.append(f" {title:<18} skipped: {row['skipped']}")
            continue
        compiled = row["stage"] != "eager"
        speedup = f"{row['speedup']:.2f}x" if row.get("speedup") else None
        first, spent, program = f"{row['first_call_s']:.2f}", f"{row['compiled_ms']:.1f}", f"{row['program_s']:.1f}"
        lines.append(
            f" {title:<18} {_cell(row['graphs'] if compiled else None, 6)} "
            f"{_cell(row['graph_breaks'] if compiled else None, 6)} {_cell(row['recompiles'] if compiled else None, 10)} "
            f"{_cell(row['cudagraph_skips'], 15)} {_cell(row['calls'], 7)} {_cell(first, 13)} "
            f"{_cell(spent, 12)} {_cell(speedup, 9)} {_cell(program, 9)}")
        if row.get("error"):
            tail = f": {row['output_tail'].splitlines()[-1][:120]}" if row.get("output_tail") else ""
            lines.append(f" {title}: {row['error']}{tail}")
    return "\n".join(lines)


Bar = tuple[str, float, str]  # (stage title, value, note written after the bar)


def plot_ladders(results: list[tuple[str, dict[str, Any]]], path: Path) -> None:
    """Bars of median time per stage, one panel per target, speed-ups over eager written on them."""
    panels = []
    for label, result in results:
        rows = [r for r in ladder_rows(result) if r["median_ms"] is not None]
        bars = [(STAGE_TITLES.get(r["stage"], r["stage"]), r["median_ms"],
                 f" {r['median_ms']:.3f} ms" + (f"  {r['speedup']:.2f}x" if r["speedup"] else "")
                 + (f"  breaks {r['graph_breaks']}" if r["graph_breaks"] else "")) for r in rows]
        panels.append((label, bars))
    _draw(panels, "median ms per call", path)


def plot_program_ladder(records: list[dict[str, Any]], label: str, path: Path) -> None:
    """`--ladder`: bars of the time the program spent in its compiled callables per stage (every
    call but each callable's first), speed-ups over eager written on them."""
    bars = [(STAGE_TITLES.get(r["stage"], r["stage"]), r["compiled_ms"],
             f" {r['compiled_ms']:.1f} ms" + (f"  {r['speedup']:.2f}x" if r.get("speedup") else "")
             + (f"  breaks {r['graph_breaks']}" if r.get("graph_breaks") and r["stage"] != "eager" else ""))
            for r in records if not r.get("skipped") and r.get("compiled_ms")]
    _draw([(label, bars)], "ms in the compiled callables (every call but each one's first)", path)


def _draw(panels: list[tuple[str, list[Bar]]], xlabel: str, path: Path) -> None:
    """One horizontal bar chart per panel, ladder order top to bottom (matplotlib, headless)."""
    panels = [(label, bars) for label, bars in panels if bars]
    if not panels:
        raise ValueError("no stage was timed: nothing to plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(len(panels), 1, squeeze=False,
                                figsize=(8, 1.2 + 0.5 * max(len(b) for _, b in panels) * len(panels)))
    for axis, (label, bars) in zip(axes[:, 0], panels):
        drawn = axis.barh([b[0] for b in bars][::-1], [b[1] for b in bars][::-1], color="#4c72b0")
        for bar, (_, _, note) in zip(drawn, bars[::-1]):
            axis.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, note, va="center", fontsize=8)
        axis.set_title(label, fontsize=10)
        axis.set_xlabel(xlabel)
        axis.set_xlim(0, max(b[1] for b in bars) * 1.6)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
