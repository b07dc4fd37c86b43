"""confirm: targets -> isolated runs -> runtime events -> join with static findings -> report."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from breaklint.finding import CheckResult
from ..finding import Finding
from ..report.json import finding_record
from ..report.printable import printable
from .join import CONFIRMED, NOT_REACHED, NOT_REPRODUCED, JoinResult, failure_finding, join
from .ladder import ladder_rows, render_ladder, render_program_ladder, render_ranks
from .runner import Status, TargetRun, run_target
from .targets import Target

# (index of the target, the target, what its process says it does): for the live display.
TargetWatcher = Callable[[int, Target, Status], None]


@dataclass
class ConfirmReport:
    runs: list[TargetRun]
    joined: JoinResult
    failures: list[Finding] = field(default_factory=list)
    observed_returncode: int | None = None  # observe mode: the command's own exit code
    program: list[dict[str, Any]] = field(default_factory=list)  # --ladder: one record per stage

    def count(self, status: str) -> int:
        return sum(1 for j in self.joined.judged if j.status == status)


def executed_from_runs(runs: Iterable[TargetRun]) -> dict[str, set[int]]:
    executed: dict[str, set[int]] = {}
    for run in runs:
        for filename, lines in run.result.get("executed", {}).items():
            executed.setdefault(filename, set()).update(lines)
    return executed


def report_of(runs: list[TargetRun], static: CheckResult, cwd: Path) -> ConfirmReport:
    """The join of the runs so far with the static findings."""
    events = [event for run in runs for event in run.result.get("events", [])]
    joined = join(static.findings, events, executed_from_runs(runs), cwd)
    failures = [failure_finding(run.target.label, run.target.path, run.target.line, run.failure, cwd)
                for run in runs if run.failure]
    return ConfirmReport(runs, joined, failures)


def confirm_targets(targets: list[Target], static: CheckResult, stages: list[str], roots: list[Path],
                    timeout: float, repeat: int, warmup: int, cwd: Path, budget: float | None = None,
                    watch: TargetWatcher | None = None,
                    on_done: Callable[[ConfirmReport], None] | None = None, nproc: int | None = None) -> ConfirmReport:
    """Each target in turn, in its own process; `on_done` gets the report so far after each one
    (so that a time-out of the whole run loses only the target in flight), and no target starts
    once `budget` seconds are spent (each gets at most what is left)."""
    runs: list[TargetRun] = []
    started = time.monotonic()
    for index, target in enumerate(targets):
        left = None if budget is None else budget - (time.monotonic() - started)
        if left is not None and left <= 0:
            run = TargetRun(target, error=f"not run: the --budget of {budget:g} s was spent")
        else:
            limit = timeout if left is None else min(timeout, left)
            watcher = (lambda status, index=index, target=target: watch(index, target, status)) if watch else None
            run = run_target(target, stages, roots, limit, repeat, warmup, watcher, nproc)
            if run.error and run.error.startswith("timed out") and limit < timeout:
                run.error += " (what was left of the --budget)"
        runs.append(run)
        if on_done is not None:
            on_done(report_of(runs, static, cwd))
    return report_of(runs, static, cwd)


def render_target(run: TargetRun) -> str:
    """One target's header and ladder: printed as soon as the target finishes."""
    result = run.result
    where = f"{result.get('device', '?')}, torch {result.get('torch', '?')}"
    if result.get("triton"):
        where += f", Triton {result['triton']}"
    lines = [printable(f"target {run.target.label} ({where})" + (f": {result['usage']}" if result.get("usage") else ""))]
    if run.failure:
        lines.append(printable(f" failed: {run.failure}"))  # may quote the target's own output
    if result.get("stages"):
        lines.append(render_ladder(result))
    if result.get("distributed"):
        lines.extend(render_ranks(result))
    return "\n".join(lines) + "\n"


def render_findings(report: ConfirmReport) -> str:
    """The join: every static finding's status, the runtime-only findings, the summary."""
    lines: list[str] = []
    for judged in report.joined.judged:
        f = judged.finding
        evidence = f" — {judged.evidence}" if judged.evidence else ""
        lines.append(printable(f"{f.path}:{f.span.start_line}:{f.span.start_col}: {f.code} {judged.status}{evidence}"))
    for f in [*report.joined.runtime_only, *report.failures]:
        lines.append(printable(f"{f.path}:{f.span.start_line}:{f.span.start_col}: {f.code} runtime-only "
                               f"[{f.stage.value}] {f.message}"))
    lines.append(summary(report))
    return "\n".join(lines) + "\n"


def render_text(report: ConfirmReport) -> str:
    targets = "".join(render_target(run) + "\n" for run in report.runs)
    ladder = render_program_ladder(report.program) + "\n\n" if report.program else ""
    return targets + ladder + render_findings(report)


def summary(report: ConfirmReport) -> str:
    failed = sum(1 for run in report.runs if run.failure)
    targets = f"{len(report.runs)} target{'s' if len(report.runs) != 1 else ''}" if report.runs else "observed command"
    return (f"{report.count(CONFIRMED)} confirmed, {report.count(NOT_REPRODUCED)} not reproduced, "
            f"{report.count(NOT_REACHED)} not reached, {len(report.joined.runtime_only)} runtime-only; "
            f"{targets}" + (f", {failed} failed" if failed else ""))


def render_json(report: ConfirmReport) -> str:
    data: dict[str, Any] = {
        "targets": [
            {"target": run.target.label, "path": str(run.target.path), "device": run.result.get("device"),
             "torch": run.result.get("torch"), "triton": run.result.get("triton"),
             "usage": run.result.get("usage"), "ladder": ladder_rows(run.result), "failure": run.failure,
             # --nproc: the launch, and per rank each stage's counts and training-step phases
             **({"distributed": run.result["distributed"], "ranks": run.result.get("ranks_summary", [])}
                if run.result.get("distributed") else {})}
            for run in report.runs
        ],
        "findings": [{**finding_record(j.finding), "status": j.status, "evidence": j.evidence}
                     for j in report.joined.judged],
        "runtime_only": [finding_record(f) for f in [*report.joined.runtime_only, *report.failures]],
        "summary": summary(report),
    }
    if report.observed_returncode is not None:
        data["command_exit_code"] = report.observed_returncode
    if report.program:
        data["program_ladder"] = report.program
    return json.dumps(data, indent=2) + "\n"


def _frames_executed(observations: Iterable[Any]) -> dict[str, set[int]]:
    from .join import function_lines

    executed: dict[str, set[int]] = {}
    for observation in observations:
        for filename, first_line in observation.frames:
            executed.setdefault(filename, set()).update(function_lines(filename, first_line))
    return executed


def confirm_observed(command: list[str], static: CheckResult, cwd: Path, timeout: float | None) -> ConfirmReport:
    """Observe mode: no ladder; a finding counts as reached when Dynamo compiled its function."""
    from .observe import observe

    observation = observe(command, timeout)
    joined = join(static.findings, observation.events, _frames_executed([observation]), cwd)
    return ConfirmReport([], joined, observed_returncode=observation.returncode)


def confirm_program(command: list[str], static: CheckResult, cwd: Path, stages: list[str], timeout: float,
                    budget: float | None = None, watch: Callable[[str, float], None] | None = None) -> ConfirmReport:
    """--ladder: the command once per stage; the events of every stage joined with the findings."""
    from .program import run_ladder

    records, observations = run_ladder(command, stages, timeout, budget, watch)
    events = [event for observation in observations for event in observation.events]
    joined = join(static.findings, events, _frames_executed(observations), cwd)
    codes = [r.get("exit_code") for r in records if "exit_code" in r]
    return ConfirmReport([], joined, observed_returncode=next((c for c in codes if c), codes[0] if codes else None),
                         program=records)
