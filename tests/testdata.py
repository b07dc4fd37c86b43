"""Shared helpers for the tests: the rule testdata and its `# expect:` markers."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "testdata" / "rules"
MARKER = re.compile(r"#\s*expect:\s*(?P<codes>BL\d{3}(?:\s*,\s*BL\d{3})*)")


def rule_files() -> list[Path]:
    return sorted(TESTDATA.glob("BL*/*.py"))


def expected_markers(path: Path) -> set[tuple[int, str]]:
    """(line, code) for every `# expect: BLxxx` comment in the file."""
    found = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            found.update((number, code.strip()) for code in match.group("codes").split(","))
    return found
