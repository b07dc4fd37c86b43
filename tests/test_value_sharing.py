"""What the value analysis shares between the functions of one file (analysis/values.py): what
`self.<attr>` of a class holds is judged once per class and attribute, however many functions
read it, and the answer is the same as judging it at every read."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from breaklint.analysis import values
from testdata import check_tree as run, write_tree as write

MODEL = {"model.py": """\
    import torch


    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = 2
            self.gate = torch.ones(1)
            self.proj = torch.nn.Linear(4, 4)

        def forward(self, x):
            if self.scale > 1:
                x = self.proj(x) * self.scale
            if self.gate.sum() > 0:
                x = x + self._shift(x)
            return x

        def _shift(self, x):
            if self.gate.any():
                return x * self.scale
            return self.proj(x)


    block = torch.compile(Block())
    """}


def findings(root: Path) -> list[tuple[int, str, str]]:
    return sorted((f.span.start_line, f.code, f.message.replace(str(root), ""))
                  for f in run(write(root, MODEL)).findings)


def test_a_class_attribute_is_judged_once_per_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    judged: Counter[tuple[str, str]] = Counter()
    read: Counter[tuple[str, str]] = Counter()
    class_attribute = values.FunctionValues._class_attribute
    self_attribute = values.FunctionValues._self_attribute

    def judging(self: values.FunctionValues, cls: values.ClassInfo, attr: str) -> values.Value:
        judged[cls.qualname, attr] += 1
        return class_attribute(self, cls, attr)

    def reading(self: values.FunctionValues, cls: values.ClassInfo, attr: str) -> values.Value:
        read[cls.qualname, attr] += 1
        return self_attribute(self, cls, attr)

    monkeypatch.setattr(values.FunctionValues, "_class_attribute", judging)
    monkeypatch.setattr(values.FunctionValues, "_self_attribute", reading)
    shared = findings(tmp_path / "shared")
    assert shared  # the gate's test breaks
    assert max(read.values()) > 1 and set(judged) == set(read) and set(judged.values()) == {1}

    monkeypatch.setattr(values.FunctionValues, "_self_attribute", lambda self, cls, attr: class_attribute(self, cls, attr))
    assert findings(tmp_path / "each") == shared


HELPER_CALLERS = {
    "helpers.py": """\
        def count(mask):
            counts = mask.long().sum(dim=1)
            return counts.max(), counts.shape[0]
        """,
    "first.py": """\
        import torch
        from helpers import count


        @torch.compile
        def first(x):
            n, rows = count(x > 0)
            return x.narrow(-1, n, 1)
        """,
    "second.py": """\
        import torch
        from helpers import count


        @torch.compile
        def second(x):
            n, rows = count(x > 0)
            return x.narrow(-1, n, 1)
        """,
}


def test_another_files_callee_is_read_for_its_returns_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each file that calls it judges what it returns (with its own view of the project), but
    its `return`s are found in its code once while it lives (returns.py, `_returns_of`)."""
    from breaklint.analysis import returns

    judged: list[str] = []
    walked: list[str] = []
    returned, own_returns = returns.ReturnFlow._returned, returns._own_returns

    def judging(self: returns.ReturnFlow, fn: returns.FunctionInfo) -> returns.Returned | None:
        judged.append(fn.qualname)
        return returned(self, fn)

    def walking(node: values.cst.FunctionDef) -> tuple[list[values.cst.Return], bool]:
        walked.append(node.name.value)
        return own_returns(node)

    monkeypatch.setattr(returns.ReturnFlow, "_returned", judging)
    monkeypatch.setattr(returns, "_own_returns", walking)
    result = run(write(tmp_path, HELPER_CALLERS))
    assert sorted((f.path.rsplit("/", 1)[-1], f.code) for f in result.findings) == [
        ("first.py", "BL101"), ("second.py", "BL101")]
    assert judged.count("count") >= 2 and walked.count("count") < judged.count("count")
