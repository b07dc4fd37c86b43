"""`--scope all` makes every function a region: what the rules ask of a function is computed
once per function, never again at each finding (a count of work, never a clock)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from breaklint import rule as rule_module
from breaklint.check.engine import Engine
from breaklint.check.registry import RuleSet
from breaklint.config import Config

TESTS = "".join(f"    if x.sum() > {k}:\n        x = x + 1\n" for k in range(6))
CODE = f"def step(x):\n{TESTS}    while x.max() > 0:\n        x = x - 1\n    return x\n\n\ndef other(x):\n{TESTS}    return x\n"


def test_a_functions_shape_is_walked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its if/elif/else blocks, loop bodies and while tests (walk.shape): one walk per function,
    however many findings it holds (training_arm and diagnostic_branch walked its ifs at each)."""
    (tmp_path / "steps.py").write_text(CODE, encoding="utf-8")
    walked: Counter[str] = Counter()
    original = rule_module.shape

    def counting(function):  # type: ignore[no-untyped-def]
        walked[function.name.value] += 1
        return original(function)

    monkeypatch.setattr(rule_module, "shape", counting)
    monkeypatch.chdir(tmp_path)
    config = Config(root=tmp_path, scope="all")
    findings = Engine(config, RuleSet(config), jobs=1).check([tmp_path]).findings
    branches = Counter(f.code for f in findings)
    assert branches["BL102"] >= 12, branches
    assert walked == {"step": 1, "other": 1}
