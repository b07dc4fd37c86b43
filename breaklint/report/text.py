"""`path:line:col: CODE [confidence] message`, a help line, and a summary. What comes from the
checked tree (paths, and messages naming them) is escaped: one finding, one line (printable.py)."""

from __future__ import annotations

from collections import Counter

from breaklint.finding import CheckResult
from breaklint.report.printable import printable


def render_text(result: CheckResult, verbose: bool = False) -> str:
    lines: list[str] = []
    for f in result.findings:
        lines.append(printable(f"{f.path}:{f.span.start_line}:{f.span.start_col}: {f.code} [{f.confidence.value}] "
                               f"{f.message}"))
        if f.help:
            lines.append(printable(f"    help: {f.help}"))
        if verbose and f.region is not None and len(f.region.path) > 1:
            lines.append(printable(f"    call chain: {' -> '.join(f.region.path)}"))
        if verbose and f.details:
            lines.extend("    " + printable(line) for line in f.details.rstrip().split("\n"))
    lines.append(summary(result))
    return "\n".join(lines) + "\n"


def summary(result: CheckResult) -> str:
    count = len(result.findings)
    in_regions = sum(1 for f in result.findings if f.region is not None)
    noun = "finding" if count == 1 else "findings"
    files = "file" if result.files_checked == 1 else "files"
    return (
        f"Found {count} {noun} ({in_regions} in compiled regions; "
        f"{result.files_checked} {files}, {result.seconds:.2f} s)"
    )


def render_statistics(result: CheckResult) -> str:
    counts = Counter((f.code, f.name) for f in result.findings)
    rows = [f"{n:5d}  {code}  {name}" for (code, name), n in sorted(counts.items())]
    return "\n".join(rows) + ("\n" if rows else "")
