"""confirm: targets -> isolated runs -> runtime events -> join with static findings -> report."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from breaklint.finding import CheckResult
from ..finding import Finding
from ..report.json import finding_record
from ..report.printable import printable
from .join import CONFIRMED, NOT_REACHED, NOT_REPRODUCED, JoinResult, failure_finding, join
from .ladder import ladder_rows, render_ladder
from .runner import TargetRun, run_target
from .targets import Target


@dataclass
class ConfirmReport:
    runs: list[TargetRun]
    joined: JoinResult
    failures: list[Finding] = field(default_factory=list)
    observed_returncode: int | None = None  # observe mode: the command's own exit code

    def count(self, status: str) -> int:
        return sum(1 for j in self.joined.judged if j.status == status)


def executed_from_runs(runs: Iterable[TargetRun]) -> dict[str, set[int]]:
    executed: dict[str, set[int]] = {}
    for run in runs:
        for filename, lines in run.result.get("executed", {}).items():
            executed.setdefault(filename, set()).update(lines)
    return executed


def confirm_targets(targets: list[Target], static: CheckResult, stages: list[str], roots: list[Path],
                    timeout: float, repeat: int, warmup: int, cwd: Path,
                    progress: Callable[[Iterable[Target]], Iterable[Target]] = lambda t: t) -> ConfirmReport:
    runs = [run_target(t, stages, roots, timeout, repeat, warmup) for t in progress(targets)]
    events = [event for run in runs for event in run.result.get("events", [])]
    joined = join(static.findings, events, executed_from_runs(runs), cwd)
    failures = [failure_finding(run.target.label, run.target.path, run.target.line, run.failure, cwd)
                for run in runs if run.failure]
    return ConfirmReport(runs, joined, failures)


def render_text(report: ConfirmReport) -> str:
    lines: list[str] = []
    for run in report.runs:
        result = run.result
        where = f"{result.get('device', '?')}, torch {result.get('torch', '?')}"
        if result.get("triton"):
            where += f", Triton {result['triton']}"
        lines.append(printable(f"target {run.target.label} ({where})"))
        if run.failure:
            lines.append(printable(f" failed: {run.failure}"))  # may quote the target's own output
        if result.get("stages"):
            lines.append(render_ladder(result))
        lines.append("")
    for judged in report.joined.judged:
        f = judged.finding
        evidence = f" — {judged.evidence}" if judged.evidence else ""
        lines.append(printable(f"{f.path}:{f.span.start_line}:{f.span.start_col}: {f.code} {judged.status}{evidence}"))
    for f in [*report.joined.runtime_only, *report.failures]:
        lines.append(printable(f"{f.path}:{f.span.start_line}:{f.span.start_col}: {f.code} runtime-only "
                               f"[{f.stage.value}] {f.message}"))
    lines.append(summary(report))
    return "\n".join(lines) + "\n"


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
             "ladder": ladder_rows(run.result), "failure": run.failure}
            for run in report.runs
        ],
        "findings": [{**finding_record(j.finding), "status": j.status, "evidence": j.evidence}
                     for j in report.joined.judged],
        "runtime_only": [finding_record(f) for f in [*report.joined.runtime_only, *report.failures]],
        "summary": summary(report),
    }
    if report.observed_returncode is not None:
        data["command_exit_code"] = report.observed_returncode
    return json.dumps(data, indent=2) + "\n"


def confirm_observed(command: list[str], static: CheckResult, cwd: Path, timeout: float | None) -> ConfirmReport:
    """Observe mode: no ladder; a finding counts as reached when Dynamo compiled its function."""
    from .join import function_lines
    from .observe import observe

    observation = observe(command, timeout)
    executed: dict[str, set[int]] = {}
    for filename, first_line in observation.frames:
        executed.setdefault(filename, set()).update(function_lines(filename, first_line))
    joined = join(static.findings, observation.events, executed, cwd)
    return ConfirmReport([], joined, observed_returncode=observation.returncode)
