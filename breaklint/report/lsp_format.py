"""Findings as LSP Diagnostics (plain JSON, no pygls): the language server publishes these, and
`--format lsp` prints `{uri: [Diagnostic, ...]}` for editors that run a command instead."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Sequence

from breaklint.finding import CheckResult
from breaklint.infra.files import ReadProblem, read_capped, read_source, shown_text
from breaklint.finding import Finding, Severity
from breaklint.index.def_lines import line_texts
from breaklint.report.positions import UTF16, lsp_range

SOURCE = "breaklint"
SEVERITY = {Severity.ERROR: 1, Severity.WARNING: 2, Severity.INFO: 3}  # DiagnosticSeverity
UNNECESSARY = 1  # DiagnosticTag.Unnecessary: editors fade an unused suppression
UNUSED_SUPPRESSION = "BL004"
# Where `tools/gen_docs.py` writes each rule's page in a source checkout.
DOCS_DIR = Path(__file__).resolve().parents[2] / "docs" / "rules"


def rule_href(code: str, url: str) -> str:
    """The rule's page: its generated doc in this checkout when there is one (a link that
    resolves offline), else its page in the repository ("" when neither is known)."""
    page = DOCS_DIR / f"{code}.md"
    return page.as_uri() if page.is_file() else url


def diagnostic(finding: Finding, lines: Sequence[str], encoding: str = UTF16) -> dict[str, Any]:
    record: dict[str, Any] = {
        "range": lsp_range(finding.span, lines, encoding),
        "severity": SEVERITY[finding.severity],
        "code": finding.code,
        "source": SOURCE,
        "message": finding.message,
        "data": {
            "name": finding.name,
            "confidence": finding.confidence.value,
            "stage": finding.stage.value,
            "help": finding.help,
            "gbIds": list(finding.gb_ids),
        },
    }
    href = rule_href(finding.code, finding.url)
    if href:  # none for a rule without a page here or a known repository
        record["codeDescription"] = {"href": href}
    if finding.code == UNUSED_SUPPRESSION:
        record["tags"] = [UNNECESSARY]
    return record


def absolute(path: str, base: Path) -> Path:
    """A finding's display path back to the file (display paths are relative to `base`)."""
    candidate = Path(path)
    return candidate if candidate.is_absolute() else base / candidate


def _disk_lines(path: Path) -> list[str]:
    text = read_source(path)
    if isinstance(text, ReadProblem):  # a BL002 still has a place in what the editor shows
        data = read_capped(path)
        return [] if isinstance(data, ReadProblem) else line_texts(shown_text(data))
    return line_texts(text)


def diagnostics_by_uri(
    findings: Sequence[Finding], base: Path, lines_of: Callable[[Path], Sequence[str]] = _disk_lines,
    encoding: str = UTF16,
) -> dict[str, list[dict[str, Any]]]:
    by_uri: dict[str, list[dict[str, Any]]] = {}
    cached: dict[Path, Sequence[str]] = {}
    for finding in findings:
        path = absolute(finding.path, base)
        if path not in cached:
            cached[path] = lines_of(path)
        by_uri.setdefault(path.as_uri(), []).append(diagnostic(finding, cached[path], encoding))
    return by_uri


def render_lsp(result: CheckResult, verbose: bool = False) -> str:
    # The engine prints paths relative to the working directory; columns need the file's text.
    return json.dumps(diagnostics_by_uri(result.findings, Path.cwd()), indent=2) + "\n"
