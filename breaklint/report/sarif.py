"""SARIF 2.1.0 for code-scanning tools (GitHub's upload-sarif, IDE viewers).

Every rule of the catalog is described (a one-sentence short description, the docstring as full
description, its page in the repository as help URI where the repository is known, GitHub's
`precision` and `problem.severity`), results point at files relative to `%SRCROOT%` (the working
directory, where paths are shown from) with columns in code points, declared as such, and carry a
fingerprint that stays the same when lines above them move."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Sequence
from urllib.parse import quote

from .. import __version__
from breaklint.finding import CheckResult, Finding, Severity
from breaklint.infra.files import ReadProblem, read_source
from breaklint.index.def_lines import line_texts
from breaklint.report.positions import sarif_region, span_text
from breaklint.project_urls import repository
from breaklint.check.registry import all_rules
from ..rule import Rule
from . import ruledoc

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
# GitHub code scanning's rule properties (its "SARIF support" page): how it sorts and labels alerts.
PROBLEM_SEVERITY = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "recommendation"}
# Proven against the real compiler by its testdata (stable), flagged by analogy (preview); a
# problem of the run itself or an event the compiler logged (BL0xx, BLx90) is a fact, not a guess.
PRECISION = {"stable": "high", "preview": "medium"}
SRCROOT = "%SRCROOT%"
INTERNAL_ERROR = "BL005"
FINGERPRINT = "breaklintFinding/v1"


def precision(rule: type[Rule]) -> str:
    return "very-high" if rule.meta else PRECISION[rule.status]


def rule_descriptor(rule: type[Rule]) -> dict[str, Any]:
    docs = ruledoc.markdown(rule)
    descriptor: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": ruledoc.sentence(rule)},
        "fullDescription": {"text": docs, "markdown": docs},
        "help": {"text": rule.help or ruledoc.summary(rule), "markdown": docs},
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {
            "tags": [rule.stage.value, *rule.gb_ids()],
            "precision": precision(rule),
            "problem.severity": PROBLEM_SEVERITY[rule.severity],
        },
    }
    if rule.url():
        descriptor["helpUri"] = rule.url()
    return descriptor


def _location(path: str) -> dict[str, str]:
    if Path(path).is_absolute():
        return {"uri": Path(path).as_uri()}
    # A name that is not UTF-8 (lone surrogates from os.fsdecode) is percent-encoded as its bytes.
    return {"uri": quote(path, errors="surrogateescape"), "uriBaseId": SRCROOT}


def fingerprints(findings: Sequence[Finding], lines_of: Callable[[str], Sequence[str]]) -> list[str]:
    """One fingerprint a finding: its rule, file, region and the code it points at (whitespace
    collapsed), then which of the equal ones it is in file order. No line or column goes in, so a
    finding keeps its fingerprint when code above it moves it; an edit of the flagged code makes a
    new one."""
    seen: Counter[str] = Counter()
    prints = []
    for f in findings:
        code = " ".join(span_text(f.span, lines_of(f.path)).split())
        key = "\0".join((f.code, f.path, f.region.entry if f.region is not None else "", code))
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        prints.append(f"{digest}:{seen[digest]}")
        seen[digest] += 1
    return prints


def _result(finding: Finding, index: dict[str, int], fingerprint: str) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": LEVEL[finding.severity],
        "message": {"text": finding.message + (f"\nhelp: {finding.help}" if finding.help else "")},
        "locations": [{"physicalLocation": {
            "artifactLocation": _location(finding.path),
            "region": sarif_region(finding.span),
        }}],
        "partialFingerprints": {FINGERPRINT: fingerprint},
        "properties": {
            "confidence": finding.confidence.value,
            "stage": finding.stage.value,
            "gbIds": list(finding.gb_ids),
        },
    }
    if finding.code in index:
        result["ruleIndex"] = index[finding.code]
    if finding.region is not None:
        result["properties"]["region"] = {
            "entry": finding.region.entry, "site": finding.region.site, "callChain": list(finding.region.path),
            "assumed": finding.region.assumed,
        }
    return result


def _disk_lines(base: Path) -> Callable[[str], Sequence[str]]:
    cached: dict[str, Sequence[str]] = {}

    def lines_of(path: str) -> Sequence[str]:
        if path not in cached:
            text = read_source(Path(path) if Path(path).is_absolute() else base / path)
            cached[path] = [] if isinstance(text, ReadProblem) else line_texts(text)
        return cached[path]

    return lines_of


def sarif_log(result: CheckResult, base: Path, lines_of: Callable[[str], Sequence[str]] | None = None) -> dict[str, Any]:
    rules = all_rules()
    index = {rule.code: i for i, rule in enumerate(rules)}
    driver: dict[str, Any] = {
        "name": "breaklint",
        "version": __version__,
        "semanticVersion": __version__,
        "rules": [rule_descriptor(rule) for rule in rules],
    }
    if repository():
        driver["informationUri"] = repository()
    prints = fingerprints(result.findings, lines_of or _disk_lines(base))
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "originalUriBaseIds": {SRCROOT: {"uri": base.as_uri().rstrip("/") + "/"}},
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                "executionSuccessful": not any(f.code == INTERNAL_ERROR for f in result.findings),
            }],
            "results": [_result(f, index, fingerprint) for f, fingerprint in zip(result.findings, prints)],
        }],
    }


def render_sarif(result: CheckResult, verbose: bool = False) -> str:
    return json.dumps(sarif_log(result, Path.cwd()), indent=2) + "\n"
