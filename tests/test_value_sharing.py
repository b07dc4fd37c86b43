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
