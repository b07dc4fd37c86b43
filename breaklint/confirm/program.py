"""`breaklint confirm --ladder -- python script.py`: the unchanged program, once per stage, with
every `torch.compile` call forced to that stage (hook.py), and the time its compiled callables
took in each: what each stage bought this program, with no example to write."""

from __future__ import annotations

import time
from typing import Any, Callable

from .observe import Observation, observe
from .stages import STAGES

# (stage, seconds so far): for the live display.
StageWatcher = Callable[[str, float], None]


def stage_record(stage: str, observation: Observation) -> dict[str, Any]:
    """What one run of the program says about a stage: summed over its Python processes."""
    callables: dict[str, dict[str, Any]] = {}
    for process in observation.processes:
        for label, times in process.get("callables", {}).items():
            into = callables.setdefault(label, {"calls": 0, "first_call_s": 0.0, "later_ms": 0.0, "medians": []})
            into["calls"] += times["calls"]
            into["first_call_s"] += times["first_call_s"]
            into["later_ms"] += times["later_ms"]
            if times.get("median_ms") is not None:
                into["medians"].append(times["median_ms"])
    events = observation.events
    skips = [e for e in events if e["kind"] == "cudagraph_skip"]
    return {
        "stage": stage,
        "exit_code": observation.returncode,
        "program_s": observation.seconds,
        "calls": sum(c["calls"] for c in callables.values()),
        "first_call_s": sum(c["first_call_s"] for c in callables.values()),
        "compiled_ms": sum(c["later_ms"] for c in callables.values()),  # every call but each one's first
        "callables": {label: {k: v for k, v in c.items() if k != "medians"} |
                      {"median_ms": min(c["medians"]) if c["medians"] else None} for label, c in callables.items()},
        "graphs": sum(p.get("graphs", 0) for p in observation.processes),
        "graph_breaks": len({(e["filename"], e["lineno"], e.get("gb_id")) for e in events
                             if e["kind"] == "graph_break" and not e.get("frame_skipped")}),
        "recompiles": sum(1 for e in events if e["kind"] == "recompile"),
        "cudagraph_skips": len(skips) if stage == "cudagraphs" else None,
        "cudagraph_unreplayed": sum(p.get("cudagraph_unreplayed", 0) for p in observation.processes),
        "cuda": any(p.get("cuda") for p in observation.processes),
        "output_tail": observation.output_tail if observation.returncode != 0 else "",
    }


def run_ladder(command: list[str], stages: list[str], timeout: float, budget: float | None = None,
               watch: StageWatcher | None = None) -> tuple[list[dict[str, Any]], list[Observation]]:
    """Every wanted stage in ladder order; CUDA graphs only where the eager run saw a GPU."""
    records: list[dict[str, Any]] = []
    observations: list[Observation] = []
    started = time.monotonic()
    cuda = True
    for stage in (s for s in STAGES if s.name in stages):
        left = None if budget is None else budget - (time.monotonic() - started)
        if left is not None and left <= 0:
            records.append({"stage": stage.name, "skipped": f"not run: the --budget of {budget:g} s was spent"})
            continue
        if stage.needs_cuda and not cuda:
            records.append({"stage": stage.name, "skipped": "needs CUDA: the program saw no GPU"})
            continue
        if watch is not None:
            watch(stage.name, time.monotonic() - started)
        limit = timeout if left is None else min(timeout, left)
        observation = observe(command, limit, stage=stage.name)
        record = stage_record(stage.name, observation)
        if observation.returncode is None:
            record["error"] = f"timed out after {limit:g} s"
        elif observation.returncode != 0:
            record["error"] = f"the command exited with code {observation.returncode}"
        if stage.name == "eager" and observation.processes:
            cuda = record["cuda"]
        records.append(record)
        observations.append(observation)
    eager = next((r for r in records if r["stage"] == "eager" and not r.get("skipped")), None)
    for record in records:
        base, own = (eager or {}).get("compiled_ms"), record.get("compiled_ms")
        record["speedup"] = base / own if base and own else None
    return records, observations
