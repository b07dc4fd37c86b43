"""Code that runs only when an `isinstance` test fails for a tensor (analysis/type_tests.py,
FileContext.type_gate): never traced for a known tensor, `possible` for a likely one. The cases
Dynamo labels are in testdata/rules/BL108 (`tensor_or_path`, `loads_only_paths`)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from breaklint.analysis.type_tests import tensor_answer, type_tests
from breaklint.finding import Confidence


def _expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def _names(expr: cst.BaseExpression) -> str | None:
    return {"str": "str", "t.Tensor": "torch.Tensor", "np.ndarray": "numpy.ndarray",
            "Mine": "pkg.Mine", "list": "list"}.get(cst.Module([]).code_for_node(expr))


@pytest.mark.parametrize("test, holds, expected", [
    ("isinstance(a, str)", True, [("a", "str", True)]),
    ("not isinstance(a, str)", True, [("a", "str", False)]),
    ("isinstance(a, str) and ok(a)", True, [("a", "str", True)]),
    ("isinstance(a, str) and isinstance(b, list)", False, []),  # either may have failed
    ("isinstance(a, str) or isinstance(b, list)", False, [("a", "str", False), ("b", "list", False)]),
    ("isinstance(a, str) or ok(a)", True, []),
    ("isinstance(a, *types)", True, []),
    ("ok(a)", True, []),
])
def test_the_isinstance_tests_a_condition_decides(test: str, holds: bool, expected: list[tuple[str, str, bool]]) -> None:
    code = cst.Module([]).code_for_node
    found = [(code(t.subject), code(t.classinfo), t.holds) for t in type_tests(_expr(test), holds)]
    assert found == expected


@pytest.mark.parametrize("classinfo, answer", [
    ("t.Tensor", True), ("(str, t.Tensor)", True), ("str", False), ("(str, np.ndarray)", False),
    ("Mine", None), ("(str, Mine)", None), ("get_type()", None),
])
def test_what_isinstance_gives_for_a_tensor(classinfo: str, answer: bool | None) -> None:
    assert tensor_answer(_expr(classinfo), _names) is answer


LOADER = '''\
def load_{name}(arg):
    if isinstance(arg, str) and os.path.exists(arg):
        return torch.load(arg)
    if isinstance(arg, torch.Tensor):
        return arg if arg.sum() > 0 else -arg
    return torch.load(arg)
'''
SOURCE = ("import os\nimport torch\n\n\n" + LOADER.format(name="known") + "\n\n" + LOADER.format(name="likely")
          + "\n\n@torch.compile\ndef known(x):\n    return load_known(torch.relu(x))\n"
          + "\n\n@torch.compile\ndef likely(x):\n    return load_likely(x)\n")


def test_a_known_tensor_never_reaches_code_behind_a_failing_isinstance(check, tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    path.write_text(SOURCE, encoding="utf-8")
    findings = {(f.span.start_line, f.code): f.confidence for f in check([path], root=tmp_path).findings}
    # load_known (lines 5-10) gets a tensor: the I/O behind `isinstance(arg, str)` is never traced
    # for it, nor what follows `return` under `isinstance(arg, torch.Tensor)`; the branch on the
    # tensor is.
    assert findings.get((6, "BL108")) is None and findings.get((7, "BL108")) is None
    assert findings.get((10, "BL108")) is None
    assert findings[(9, "BL102")] is Confidence.CERTAIN  # `arg.sum() > 0` of the tensor passed
    # load_likely (lines 13-18) gets a likely tensor: possible, with the test named.
    assert findings[(14, "BL108")] is Confidence.POSSIBLE
    assert findings[(15, "BL108")] is Confidence.POSSIBLE
    assert findings[(17, "BL102")] is Confidence.LIKELY
    assert findings[(18, "BL108")] is Confidence.POSSIBLE  # after `if isinstance(arg, torch.Tensor): return`
