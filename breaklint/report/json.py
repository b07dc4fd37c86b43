"""One JSON record a finding, in a list; positions are 1-based, ends exclusive."""

from __future__ import annotations

import json
from typing import Any

from breaklint.finding import CheckResult
from ..finding import Finding


def finding_record(f: Finding) -> dict[str, Any]:
    return {
        "code": f.code,
        "name": f.name,
        "message": f.message,
        "path": f.path,
        "start_line": f.span.start_line,
        "start_column": f.span.start_col,
        "end_line": f.span.end_line,
        "end_column": f.span.end_col,
        "severity": f.severity.value,
        "confidence": f.confidence.value,
        "stage": f.stage.value,
        "region": None if f.region is None else {
            "entry": f.region.entry, "site": f.region.site, "call_chain": list(f.region.path),
        },
        "gb_ids": list(f.gb_ids),
        "url": f.url,
        "help": f.help,
    }


def render_json(result: CheckResult, verbose: bool = False) -> str:
    records = [finding_record(f) for f in result.findings]
    if verbose:
        for record, f in zip(records, result.findings):
            record["details"] = f.details
    return json.dumps(records, indent=2) + "\n"
