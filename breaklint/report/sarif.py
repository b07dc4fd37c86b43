"""SARIF 2.1.0 for code-scanning tools (GitHub's upload-sarif, IDE viewers).

Every rule of the catalog is described (full description = its docstring, help URI = its page),
results point at files relative to `%SRCROOT%` (the working directory, where paths are shown
from), and columns are code points, declared as such."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .. import __version__
from breaklint.finding import CheckResult
from ..finding import Finding, Severity
from breaklint.report.positions import sarif_region
from breaklint.check.registry import all_rules
from ..rule import Rule
from . import ruledoc

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
SRCROOT = "%SRCROOT%"
INTERNAL_ERROR = "BL005"


def rule_descriptor(rule: type[Rule]) -> dict[str, Any]:
    docs = ruledoc.markdown(rule)
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": ruledoc.summary(rule)},
        "fullDescription": {"text": docs, "markdown": docs},
        "help": {"text": rule.help or ruledoc.summary(rule), "markdown": docs},
        "helpUri": rule.url(),
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {"tags": [rule.stage.value, *rule.gb_ids()]},
    }


def _location(path: str) -> dict[str, str]:
    if Path(path).is_absolute():
        return {"uri": Path(path).as_uri()}
    # A name that is not UTF-8 (lone surrogates from os.fsdecode) is percent-encoded as its bytes.
    return {"uri": quote(path, errors="surrogateescape"), "uriBaseId": SRCROOT}


def _result(finding: Finding, index: dict[str, int]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": LEVEL[finding.severity],
        "message": {"text": finding.message + (f"\nhelp: {finding.help}" if finding.help else "")},
        "locations": [{"physicalLocation": {
            "artifactLocation": _location(finding.path),
            "region": sarif_region(finding.span),
        }}],
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
        }
    return result


def sarif_log(result: CheckResult, base: Path) -> dict[str, Any]:
    rules = all_rules()
    index = {rule.code: i for i, rule in enumerate(rules)}
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "breaklint",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [rule_descriptor(rule) for rule in rules],
            }},
            "originalUriBaseIds": {SRCROOT: {"uri": base.as_uri().rstrip("/") + "/"}},
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                "executionSuccessful": not any(f.code == INTERNAL_ERROR for f in result.findings),
            }],
            "results": [_result(f, index) for f in result.findings],
        }],
    }


def render_sarif(result: CheckResult, verbose: bool = False) -> str:
    return json.dumps(sarif_log(result, Path.cwd()), indent=2) + "\n"
