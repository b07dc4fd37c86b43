"""`breaklint confirm --nproc N`: a target run as N processes, launched as torchrun launches
them (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT in each one's
environment), and their results joined into one.

Each rank's worker starts the process group itself before it builds the example (worker.py,
`init_from_environment`: NCCL when the host has a CUDA device per rank, gloo otherwise), so an
example provider may wrap its model in DDP or FSDP. Rank 0's result carries the ladder; the
events of every rank are kept once each, with the ranks that saw them, so that a break or a
recompile seen on some ranks only says so.
"""

from __future__ import annotations

import socket
from typing import Any

RANK_VARIABLES = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
# Set for the ranks confirm launches: their worker starts the process group (at world size 1 too).
LAUNCHED = "BREAKLINT_RANKS"
MASTER_ADDR = "127.0.0.1"
# What identifies one event across ranks (the same break on every rank is one event).
_EVENT_KEY = ("kind", "stage", "filename", "lineno", "gb_id", "gb_type", "function", "reason", "op", "probe")


def free_port() -> int:
    """A TCP port free on this host now, for the ranks' rendezvous."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((MASTER_ADDR, 0))
        return int(probe.getsockname()[1])


def rank_environment(rank: int, world_size: int, port: int) -> dict[str, str]:
    """The variables torchrun sets for one process of a single-host launch."""
    return {"RANK": str(rank), "WORLD_SIZE": str(world_size), "LOCAL_RANK": str(rank),
            "LOCAL_WORLD_SIZE": str(world_size), "MASTER_ADDR": MASTER_ADDR, "MASTER_PORT": str(port), LAUNCHED: "1"}


def _key(event: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(str(event.get(field)) for field in _EVENT_KEY) + (str(event.get("reasons")),)


def merge_ranks(results: list[dict[str, Any]]) -> dict[str, Any]:
    """One result from every rank's (rank order; an empty dict for a rank that wrote none):
    rank 0's ladder, every rank's events once with `ranks` (the ranks that saw it), and
    `ranks_summary`: per rank, each stage's graphs, breaks and recompiles."""
    merged = dict(results[0]) if results else {}
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for rank, result in enumerate(results):
        for event in result.get("events", []):
            key = _key(event)
            if key in seen:
                if rank not in seen[key]["ranks"]:
                    seen[key]["ranks"].append(rank)
            else:
                seen[key] = {**event, "ranks": [rank]}
    world_size = len(results)
    for event in seen.values():
        event["world_size"] = world_size
    merged["events"] = list(seen.values())
    executed: dict[str, set[int]] = {}
    for result in results:
        for filename, lines in result.get("executed", {}).items():
            executed.setdefault(filename, set()).update(lines)
    merged["executed"] = {filename: sorted(lines) for filename, lines in executed.items()}
    merged["ranks_summary"] = [
        {"rank": rank, "stages": [{key: stage.get(key) for key in ("stage", "graphs", "graph_breaks", "recompiles",
                                                                   "median_ms", "phases_ms", "ddp_subgraphs")}
                                  for stage in result.get("stages", [])]}
        for rank, result in enumerate(results)]
    return merged


def ranked_events(processes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Observe mode: the events of every process of a command, those of a torchrun-style
    launch (processes that say their RANK, WORLD_SIZE above 1) kept once with their ranks."""
    ranked = [p for p in processes if p.get("rank") is not None and int(p.get("world_size") or 1) > 1]
    others = [e for p in processes if not any(p is r for r in ranked) for e in p["events"]]
    if not ranked:
        return others
    world_size = max(int(p["world_size"]) for p in ranked)
    by_rank: list[dict[str, Any]] = [{"events": []} for _ in range(world_size)]
    for process in ranked:
        rank = int(process["rank"])
        if 0 <= rank < world_size:
            by_rank[rank]["events"].extend(process["events"])
    return merge_ranks(by_rank)["events"] + others


def on_ranks(event: dict[str, Any]) -> str:
    """" (rank 1 only)", " (ranks 0, 2 of 4)": where an event was not seen on every rank; ""
    when it was, or when the run had one process."""
    ranks, world_size = event.get("ranks"), event.get("world_size") or 1
    if not ranks or world_size < 2 or len(ranks) == world_size:
        return ""
    if len(ranks) == 1:
        return f" (rank {ranks[0]} only, of {world_size})"
    return f" (ranks {', '.join(map(str, sorted(ranks)))} of {world_size})"


def differing_stages(merged: dict[str, Any]) -> list[str]:
    """Lines for the stages whose graphs, breaks or recompiles differ between ranks."""
    lines = []
    summary = merged.get("ranks_summary") or []
    names = [s["stage"] for s in summary[0]["stages"]] if summary else []
    for index, name in enumerate(names):
        counts = [tuple(r["stages"][index].get(k) for k in ("graphs", "graph_breaks", "recompiles"))
                  if index < len(r["stages"]) else None for r in summary]
        if len(set(counts)) > 1:
            per_rank = "; ".join(f"rank {r}: " + (f"{c[0]} graphs, {c[1]} breaks, {c[2]} recompiles" if c else "no result")
                                 for r, c in enumerate(counts))
            lines.append(f" {name}: ranks differ — {per_rank}")
    return lines
