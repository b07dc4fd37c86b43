"""`# breaklint: ignore[...]`, `# breaklint: file-ignore[...]` and `# noqa: BLxxx` comments."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Callable, Iterable

from breaklint.finding import Finding, Span

_DIRECTIVE = re.compile(
    r"#\s*breaklint:\s*(?P<kind>ignore|file-ignore)\s*(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE
)
# flake8's and ruff's form: `# noqa: E501, BL101`, `# noqa:E501,BL101`, `# noqa: E501 BL101`; the
# list is every code (letters, digits) separated by commas or spaces, and only ours count here.
_NOQA = re.compile(r"#\s*noqa\s*:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)", re.IGNORECASE)
# A cheap test of a whole file before it is tokenized: every suppression matches it.
_MAYBE_SUPPRESSION = re.compile(r"breaklint:|noqa\s*:[^\n]*?bl\d", re.IGNORECASE)
_MAYBE_NOQA = re.compile(r"noqa\s*:[^\n]*?bl\d")  # on lowered text


# The characters the case-blind pattern takes for a letter of its words that str.lower does not
# lower to that letter: İ (lowered to two characters) and ı, both taken for "i" (the only ones
# among all characters: tests/test_prepass.py).
_FOLDED_OTHERWISE = ("\u0130", "\u0131")


def may_hold_suppressions(text: str) -> bool:
    """Whether `text` may hold a suppression comment (every one matches). From its lowered copy
    and plain searches: a case-blind regex tries every position (over the torch tree, 0.28 s
    against 0.12 s). Text with a character that is lowered otherwise than the regex folds case
    gets the regex."""
    if not text.isascii() and any(odd in text for odd in _FOLDED_OTHERWISE):
        return _MAYBE_SUPPRESSION.search(text) is not None
    lowered = text.lower()
    return "breaklint:" in lowered or ("noqa" in lowered and _MAYBE_NOQA.search(lowered) is not None)


@dataclass
class Suppression:
    selectors: tuple[str, ...]  # codes, code prefixes or rule names; () means every rule
    target_line: int  # the line whose findings it silences (0: the whole file)
    span: Span  # where the comment is, for the unused-suppression finding
    used: set[str] = field(default_factory=set)  # selectors that silenced something

    def matches(self, finding: Finding) -> str | None:
        """The selector that silences `finding`, if any."""
        if not self.selectors:
            return "*"
        for selector in self.selectors:
            if finding.code.startswith(selector) or finding.name == selector:
                return selector
        return None


def parse_suppressions(text: str) -> list[Suppression]:
    """Read comments with tokenize so that `#` inside strings is never mistaken for one."""
    found: list[Suppression] = []
    pending: list[Suppression] = []  # comment-only lines wait for the next line of code
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text, newline=None).readline))  # a lone CR ends a line
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return found  # the file did not parse either; BL001 says so
    code_lines: set[int] = set()
    for token in tokens:
        if token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                              tokenize.DEDENT, tokenize.ENDMARKER, tokenize.ENCODING):
            for line in range(token.start[0], token.end[0] + 1):
                code_lines.add(line)
    for token in tokens:
        if token.type == tokenize.COMMENT:
            line, col = token.start
            for suppression in _parse_comment(token.string, line, col, line in code_lines):
                (pending if suppression.target_line == -1 else found).append(suppression)
        elif pending and token.start[0] in code_lines and token.type not in (tokenize.NL, tokenize.COMMENT):
            for suppression in pending:
                suppression.target_line = token.start[0]
                found.append(suppression)
            pending = []
    return found


def _parse_comment(comment: str, line: int, col: int, trailing: bool) -> Iterable[Suppression]:
    span = Span(line, col + 1, line, col + 1 + len(comment))
    target = line if trailing else -1
    for match in _DIRECTIVE.finditer(comment):
        selectors = _split(match.group("codes"))
        if match.group("kind").lower() == "file-ignore":
            yield Suppression(selectors, 0, span)
        else:
            yield Suppression(selectors, target, span)
    for match in _NOQA.finditer(comment):
        ours = tuple(code.upper() for code in re.split(r"[\s,]+", match.group("codes")) if code[:2].upper() == "BL")
        if ours:  # `# noqa: E501` alone belongs to another linter
            yield Suppression(ours, target, span)


def _split(codes: str | None) -> tuple[str, ...]:
    if not codes:
        return ()
    return tuple(c.strip().upper() if c.strip()[:2].upper() == "BL" else c.strip()
                 for c in codes.split(",") if c.strip())


def apply_suppressions(
    findings: list[Finding],
    suppressions: list[Suppression],
    unused: Callable[[Suppression, tuple[str, ...]], Finding | None],
) -> list[Finding]:
    """Drop suppressed findings; add one finding per suppression (or selector) that silenced nothing."""
    kept: list[Finding] = []
    for finding in findings:
        silenced = False
        for suppression in suppressions:
            if suppression.target_line not in (0, finding.span.start_line):
                continue
            selector = suppression.matches(finding)
            if selector is not None:
                suppression.used.add(selector)
                silenced = True
        if not silenced:
            kept.append(finding)
    for suppression in suppressions:
        if suppression.target_line == -1:
            continue  # a trailing comment at the end of the file: nothing to point at
        idle = tuple(s for s in suppression.selectors if s not in suppression.used)
        if (not suppression.selectors and not suppression.used) or idle:
            extra = unused(suppression, idle)
            if extra is not None:
                kept.append(extra)
    return kept
