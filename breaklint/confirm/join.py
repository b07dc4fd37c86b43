"""Join static findings with what the compiler did: confirmed, not reproduced, not reached,
and runtime-only findings for every event no rule predicted."""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from ..finding import Confidence, Finding, Severity, Span, Stage
from breaklint.check.registry import find_rule

from .places import display_path
from .ranks import on_ranks

CONFIRMED, NOT_REPRODUCED, NOT_REACHED = "confirmed", "not reproduced", "not reached"
# Which runtime events can confirm a finding of each stage.
EVENT_KINDS = {
    Stage.DYNAMO: ("graph_break",),
    Stage.GUARDS: ("recompile",),
    Stage.CUDAGRAPHS: ("cudagraph_skip",),
    Stage.AOT_AUTOGRAD: ("compile_error",),
    Stage.INDUCTOR: ("compile_error", "inductor_fallback"),
    Stage.DISTRIBUTED: ("graph_break",),  # a collective Dynamo cannot trace (BL602)
}
OBSERVED_CODE = {
    ("graph_break", None): "BL190",
    ("recompile", None): "BL290",
    ("compile_error", "aot_eager"): "BL390",
    ("compile_error", "inductor"): "BL490",
    ("compile_error", "cudagraphs"): "BL490",
    ("compile_error", "dynamo"): "BL006",
    ("inductor_fallback", None): "BL490",
    ("cudagraph_skip", None): "BL590",
}
# CUDA graph trees that record instead of replaying: their own runtime code, and the one static
# rule they confirm (a call for inference with grad enabled).
RERECORD_EFFECTS = ("pending-backward", "every-call")
RERECORD_CODE, RERECORD_RULE = "BL591", "BL506"


@dataclass(frozen=True)
class Judged:
    finding: Finding
    status: str  # confirmed / not reproduced / not reached
    evidence: str = ""  # the event that confirmed it: stage and Dynamo's words


@dataclass(frozen=True)
class JoinResult:
    judged: list[Judged]
    runtime_only: list[Finding]


def _real(path: str) -> str:
    return os.path.realpath(path)


@lru_cache(maxsize=None)
def _function_spans(path: str) -> tuple[tuple[int, int], ...]:
    """(first line incl. decorators, last line) of every function in a file; () if unreadable."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return ()
    return tuple(
        (min([node.lineno, *(d.lineno for d in node.decorator_list)]), node.end_lineno or node.lineno)
        for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    )


def function_lines(filename: str, first_line: int) -> range:
    """All lines of the function whose code object starts at `first_line` (co_firstlineno)."""
    for first, last in _function_spans(filename):
        if first == first_line:
            return range(first, last + 1)
    return range(first_line, first_line + 1)


def event_lines(event: dict[str, Any]) -> range:
    """The lines an event speaks for: its own line, or the whole function that recompiled."""
    line = int(event.get("lineno") or 0)
    if event["kind"] == "recompile" or event.get("function_level"):
        return function_lines(event["filename"], line)
    return range(line, line + 1)


def _matches(finding: Finding, finding_file: str, event: dict[str, Any]) -> bool:
    if event["kind"] not in EVENT_KINDS.get(finding.stage, ()):
        return False
    if finding.recompiles and event["kind"] == "recompile":
        # A recompile predicted at a call site (BL211-BL214): Dynamo reports it at the compiled
        # function, whose first line the finding carries.
        return bool(event.get("filename")) and _real(event["filename"]) == finding_file \
            and finding.recompiles in event_lines(event)
    if event["kind"] == "cudagraph_skip" and (event.get("effect") in RERECORD_EFFECTS) != (finding.code == RERECORD_RULE):
        return False
    if not event.get("filename") or _real(event["filename"]) != finding_file:
        return False
    lines = event_lines(event)
    return any(line in lines for line in range(finding.span.start_line, finding.span.end_line + 1))


def describe(event: dict[str, Any]) -> str:
    kind, stage = event["kind"], event["stage"]
    if kind == "graph_break":
        gb = f" ({event['gb_id']})" if event.get("gb_id") else ""
        skipped = ("; Dynamo gave up on the whole frame, which runs eagerly" if event.get("frame_skipped") else
                   "; Dynamo cannot resume after it: the rest of the function runs eagerly"
                   if event.get("rest_skipped") else "")
        return f'graph break in {stage}: "{event["gb_type"]}"{gb}{skipped}'
    if kind == "recompile":
        reasons = "; ".join(event.get("reasons") or []) or "a guard failed"
        cause = " (recompile probe: other inputs)" if event.get("probe") else ""
        via = f" (Dynamo names the wrapper at {display_path(event['via'].rsplit(':', 1)[0], Path.cwd())}:" \
              f"{event['via'].rsplit(':', 1)[1]})" if event.get("via") else ""
        return f"recompile of `{event['function']}` in {stage}{cause}{via}: {reasons}"
    if kind == "cudagraph_skip":
        if event.get("effect") == "partition":
            return f"op kept out of CUDA graphs (graph partition): {event['reason']}"
        if event.get("effect") == "rerecord":
            return f"CUDA graphs re-recorded: {event['reason']}"
        if event.get("effect") in RERECORD_EFFECTS:
            return f"CUDA graphs recorded again instead of replaying in {stage}: {event['reason']}"
        return f"cudagraphs skipped: {event['reason']}"
    if kind == "inductor_fallback":
        return f"Inductor fell back to ATen for {event['op']}"
    return f"{event.get('type', 'error')} in {stage}: {event.get('message', '')}".strip()


def join(findings: Iterable[Finding], events: list[dict[str, Any]], executed: dict[str, set[int]],
         cwd: Path) -> JoinResult:
    judged: list[Judged] = []
    used: set[int] = set()
    executed_real = {_real(f): lines for f, lines in executed.items()}
    for finding in findings:
        finding_file = _real(str(cwd / finding.path))
        hits = [i for i, event in enumerate(events) if _matches(finding, finding_file, event)]
        if hits:
            used.update(hits)
            judged.append(Judged(finding, CONFIRMED, describe(events[hits[0]]) + on_ranks(events[hits[0]])))
            continue
        ran = executed_real.get(finding_file, set())
        reached = any(line in ran for line in range(finding.span.start_line, finding.span.end_line + 1))
        judged.append(Judged(finding, NOT_REPRODUCED if reached else NOT_REACHED))
    runtime_only = _runtime_only([e for i, e in enumerate(events) if i not in used], cwd)
    return JoinResult(judged, runtime_only)


def _runtime_only(events: list[dict[str, Any]], cwd: Path) -> list[Finding]:
    """One finding per distinct event (the same break seen in every stage counts once)."""
    first: dict[tuple[Any, ...], dict[str, Any]] = {}
    for event in events:
        if event["kind"] == "graph_break":  # its reason's wording differs between stages
            key: tuple[Any, ...] = (event["kind"], event.get("filename"), event.get("lineno"), event.get("gb_id"))
        else:
            key = (event["kind"], event.get("filename"), event.get("lineno"), event.get("gb_id"), event.get("reason"),
                   event.get("op"), event.get("message") if event["kind"] == "compile_error" else None)
        kept = first.setdefault(key, event)
        if kept is not event and (event.get("frame_skipped") or event.get("rest_skipped")):
            first[key] = {**kept, **{k: True for k in ("frame_skipped", "rest_skipped") if event.get(k)}}
    found = []
    for event in first.values():
        code = (RERECORD_CODE if event.get("effect") in RERECORD_EFFECTS else
                OBSERVED_CODE.get((event["kind"], event["stage"])) or OBSERVED_CODE.get((event["kind"], None), "BL006"))
        rule = find_rule(code)
        assert rule is not None
        filename = event.get("filename") or ""
        line = int(event.get("lineno") or 1)
        path = display_path(filename, cwd)
        finding = rule.make_finding(path, Span(line, 1, line, 1), describe(event) + on_ranks(event), Confidence.CERTAIN)
        gb = event.get("gb_id")
        if gb:
            finding = replace(finding, gb_ids=(gb,))
        if event.get("probe") or event["kind"] == "inductor_fallback":
            # Provoked on purpose with other inputs, or an ATen kernel Inductor chose to call:
            # information, not a defect.
            finding = replace(finding, severity=Severity.INFO)
        found.append(finding)
    return sorted(found, key=lambda f: f.sort_key)


def failure_finding(target_label: str, path: Path, line: int, reason: str, cwd: Path) -> Finding:
    rule = find_rule("BL006")
    assert rule is not None
    return rule.make_finding(display_path(str(path), cwd), Span(line, 1, line, 1),
                             f"target {target_label} failed: {reason}")
