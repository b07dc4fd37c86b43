"""Text for people: `path:line:col: CODE severity [confidence] message`, then Dynamo's words and
the help on lines of their own (`full`, the default), or the first line alone (`concise`); a
summary; and `--statistics`. What comes from the checked tree (paths, and messages naming them)
is escaped: one finding, one line (printable.py)."""

from __future__ import annotations

import json
from collections import Counter

from breaklint.finding import DYNAMO_SAYS, CheckResult, Finding, Severity
from breaklint.report.printable import printable


def headline(f: Finding) -> tuple[str, str]:
    """The finding's message without Dynamo's words, and those words ("" when it quotes none)."""
    before, found, quote = f.message.rpartition(DYNAMO_SAYS)
    return (before, quote) if found else (f.message, "")


def first_line(f: Finding) -> str:
    return printable(f"{f.path}:{f.span.start_line}:{f.span.start_col}: {f.code} {f.severity.value} "
                     f"[{f.confidence.value}] {headline(f)[0]}")


def render_text(result: CheckResult, verbose: bool = False) -> str:
    lines: list[str] = []
    for f in result.findings:
        lines.append(first_line(f))
        quote = headline(f)[1]
        if quote:
            lines.append(printable(f"    dynamo: {quote}"))
        if f.help:
            lines.append(printable(f"    help: {f.help}"))
        if verbose and f.region is not None and len(f.region.path) > 1:
            lines.append(printable(f"    call chain: {' -> '.join(f.region.path)}"))
        if verbose and f.details:
            lines.extend("    " + printable(line) for line in f.details.rstrip().split("\n"))
    lines.append(summary(result))
    return "\n".join(lines) + "\n"


def render_concise(result: CheckResult, verbose: bool = False) -> str:
    return "".join(first_line(f) + "\n" for f in result.findings) + summary(result) + "\n"


def summary(result: CheckResult) -> str:
    count = len(result.findings)
    in_regions = sum(1 for f in result.findings if f.region is not None)
    noun = "finding" if count == 1 else "findings"
    files = "file" if result.files_checked == 1 else "files"
    by_severity = Counter(f.severity for f in result.findings)
    parts = [f"{n} {s.value}{'s' if n != 1 and s is not Severity.INFO else ''}"
             for s in Severity if (n := by_severity[s])]
    levels = ", ".join(parts) + "; " if parts else ""
    return (
        f"Found {count} {noun} ({levels}{in_regions} in compiled regions; "
        f"{result.files_checked} {files}, {result.seconds:.2f} s)"
    )


def render_statistics(result: CheckResult, as_json: bool = False) -> str:
    """A count of findings per rule, most first (then by code), as ruff's `--statistics`."""
    counts = Counter((f.code, f.name) for f in result.findings)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if as_json:
        return json.dumps([{"code": code, "name": name, "count": n} for (code, name), n in rows], indent=2) + "\n"
    return "".join(f"{n:5d}  {code}  {name}\n" for (code, name), n in rows)
