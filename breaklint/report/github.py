"""GitHub Actions workflow commands: one annotation a finding, shown on the pull request's diff.

`::warning file=F,line=L,col=C,endLine=EL,endColumn=EC,title=T::MESSAGE`, escaped as the runner
expects (`%`, CR and LF in the message; also `:` and `,` in property values)."""

from __future__ import annotations

from breaklint.finding import CheckResult
from ..finding import Finding, Severity
from breaklint.report.positions import one_based

COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    line, col, end_line, end_col = one_based(finding.span)
    properties = [
        ("file", finding.path), ("line", str(line)), ("col", str(col)),
        ("endLine", str(end_line)), ("endColumn", str(end_col)),
        ("title", f"breaklint {finding.code} {finding.name}"),
    ]
    message = f"{finding.code} [{finding.confidence.value}] {finding.message}"
    if finding.help:
        message += f"\nhelp: {finding.help}"
    fields = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return f"::{COMMAND[finding.severity]} {fields}::{escape_data(message)}"


def render_github(result: CheckResult, verbose: bool = False) -> str:
    return "".join(annotation(f) + "\n" for f in result.findings)
