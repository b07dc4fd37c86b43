"""The linter against the `# expect:` markers of every rule's testdata."""

from __future__ import annotations

from pathlib import Path

import pytest
from testdata import TESTDATA, expected_markers, rule_files

from breaklint.registry import all_rules


@pytest.mark.parametrize("path", rule_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_findings_match_markers(path: Path, check) -> None:
    result = check([path])
    found = {(f.span.start_line, f.code) for f in result.findings}
    assert found == expected_markers(path)


def test_every_rule_has_bad_and_good_testdata() -> None:
    for rule in all_rules():
        if rule.meta:
            continue
        folder = TESTDATA / rule.code
        assert (folder / "bad.py").is_file(), rule.code
        assert (folder / "good.py").is_file(), rule.code
        assert any(code == rule.code for _, code in expected_markers(folder / "bad.py")), rule.code
        assert not expected_markers(folder / "good.py"), rule.code


def test_testdata_folders_name_real_rules() -> None:
    codes = {rule.code for rule in all_rules()}
    assert {p.parent.name for p in rule_files()} <= codes
