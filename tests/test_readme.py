"""The README stays true: every rule in the table, the commands are the ones CI runs."""

from __future__ import annotations

import re

from testdata import ROOT

from breaklint.check.registry import all_rules

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_rules_table_lists_every_rule() -> None:
    rows = {(m.group(1), m.group(2)) for m in re.finditer(r"^\| (BL\d{3}) \| ([a-z-]+) \|", README, re.M)}
    assert rows == {(rule.code, rule.name) for rule in all_rules()}


def test_rules_table_cites_each_rules_gb_ids() -> None:
    for rule in all_rules():
        row = next(line for line in README.splitlines() if line.startswith(f"| {rule.code} |"))
        for gb_id in rule.gb_ids():
            assert gb_id in row, (rule.code, gb_id)


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install = "pip install -c constraints.txt -e '.[test,confirm]'"
    assert install in README and install in ci
    assert "python -m pytest" in README and "python -m pytest" in ci
    assert "torch==2.13.0" in (ROOT / "constraints.txt").read_text(encoding="utf-8")


def test_every_config_key_is_documented() -> None:
    from breaklint.config import _KEYS

    for key in _KEYS:
        assert re.search(rf"^{re.escape(key)} = ", README, re.M), key
