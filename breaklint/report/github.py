"""GitHub Actions workflow commands: one annotation a finding, shown on the pull request's diff.

`::warning file=F,line=L,col=C,endLine=EL,endColumn=EC,title=T::MESSAGE`, escaped as the runner
expects (`%`, CR and LF in the message; also `:` and `,` in property values: a newline in a file
name is sent as `%0A`, never as one). Other characters that are not printable (a terminal escape,
a byte of a name that is not UTF-8) are written as Python escapes first (printable.py)."""

from __future__ import annotations

from breaklint.finding import CheckResult
from ..finding import Finding, Severity
from breaklint.report.positions import one_based
from breaklint.report.printable import printable

COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
_OWN_ESCAPES = "\r\n"  # escape_data's


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    line, col, end_line, end_col = one_based(finding.span)
    properties = [
        ("file", printable(finding.path, keep=_OWN_ESCAPES)), ("line", str(line)), ("col", str(col)),
        ("endLine", str(end_line)), ("endColumn", str(end_col)),
        ("title", f"breaklint {finding.code} {finding.name}"),
    ]
    message = printable(f"{finding.code} [{finding.confidence.value}] {finding.message}", keep=_OWN_ESCAPES)
    if finding.help:
        message += f"\nhelp: {printable(finding.help, keep=_OWN_ESCAPES)}"
    fields = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return f"::{COMMAND[finding.severity]} {fields}::{escape_data(message)}"


def render_github(result: CheckResult, verbose: bool = False) -> str:
    return "".join(annotation(f) + "\n" for f in result.findings)
