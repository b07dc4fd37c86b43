"""Invariants of the rule catalog."""

from __future__ import annotations

import builtins
import re
import sys
from pathlib import Path

import pytest

from breaklint.finding import Stage
from breaklint.check.registry import all_rules
from breaklint.rule import DOC_SECTIONS

RULES = all_rules()
STAGE_OF_DIGIT = {"0": Stage.META, "1": Stage.DYNAMO, "2": Stage.GUARDS, "3": Stage.AOT_AUTOGRAD,
                  "4": Stage.INDUCTOR, "5": Stage.CUDAGRAPHS, "6": Stage.DISTRIBUTED}


def test_codes_sorted_unique_and_well_formed() -> None:
    codes = [rule.code for rule in RULES]
    assert codes == sorted(codes)
    assert len(set(codes)) == len(codes)
    assert all(re.fullmatch(r"BL\d{3}", code) for code in codes)
    names = [rule.name for rule in RULES]
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_anatomy(rule) -> None:
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name)
    assert rule.stage is STAGE_OF_DIGIT[rule.code[2]]
    pascal = "".join(part.capitalize() for part in rule.name.split("-"))
    # A class named after a builtin (SyntaxError) takes a `Rule` suffix.
    assert rule.__name__ in (pascal, pascal + "Rule")
    if rule.__name__ != pascal:
        assert hasattr(builtins, pascal)
    module_file = Path(sys.modules[rule.__module__].__file__ or "")
    assert module_file.stem == rule.name.replace("-", "_")
    docs = rule.docs()
    for section in DOC_SECTIONS:
        assert f"## {section}" in docs, (rule.code, section)
    assert rule.help and rule.message
    for key in rule.dynamo_says:
        assert re.fullmatch(r"GB\d{4}", key) or not key.startswith("GB"), key
    if not rule.meta:
        assert rule.bad and rule.good, rule.code
        assert rule.dynamo_says, rule.code


@pytest.mark.parametrize("rule", [r for r in RULES if not r.meta], ids=lambda r: r.code)
def test_class_examples(rule, tmp_path, check) -> None:
    for index, example in enumerate(rule.bad):
        path = tmp_path / f"bad_{index}.py"
        path.write_text(example, encoding="utf-8")
        codes = [f.code for f in check([path], root=tmp_path).findings]
        assert rule.code in codes, (rule.code, example)
    for index, example in enumerate(rule.good):
        path = tmp_path / f"good_{index}.py"
        path.write_text(example, encoding="utf-8")
        codes = [f.code for f in check([path], root=tmp_path).findings]
        assert rule.code not in codes, (rule.code, example)


def test_gb_ids_quoted_exist_in_registry() -> None:
    """Every GB id and Gb_type a rule quotes is Dynamo's own (when torch is installed)."""
    pytest.importorskip("torch")
    from breaklint.confirm.capture import load_registry

    registry = load_registry()
    if not registry:
        pytest.skip("this torch has no graph_break_registry.json")
    for rule in RULES:
        for gb_id in rule.gb_ids():
            assert gb_id in registry.values(), (rule.code, gb_id)
            assert registry.get(rule.dynamo_says[gb_id]) == gb_id, (rule.code, gb_id, rule.dynamo_says[gb_id])
