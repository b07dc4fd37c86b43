"""A linter must not print Python's warnings about the user's text: `"\\d"` (an invalid escape)
and `1if x else 2` (a number run into a keyword) make `ast.parse` warn (DeprecationWarning on
3.10, SyntaxWarning from 3.11 or 3.12). Every place the engine parses user text with `ast` goes
through infra/quiet_ast.py: the file's pre-pass, the fragments the regions read, the settings
tests, the guards' texts, and the statements libcst rejects."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path
from typing import Callable

TEXT = '''import re
import torch
from torch import nn

PATTERN = re.compile("\\d+")


class Net(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.scale = 1if config.big else 2
        self.proj = nn.Linear(4, 4) if config.use_proj else nn.Identity()

    def forward(self, x):
        words = re.findall("\\w+", "a b")
        (y): int = 1
        if x.sum() > 0:
            return self.proj(x) * self.scale
        return x.item()


model = torch.compile(Net(None))
'''


def _warns(text: str) -> bool:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ast.parse(text)
    return bool(caught)


def test_no_warning_about_the_users_text_escapes(tmp_path: Path, check: Callable) -> None:
    assert _warns('x = "\\d"') and _warns("x = 1if y else 2")  # the texts below do make ast warn
    (tmp_path / "model.py").write_text(TEXT, encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = check([tmp_path], root=tmp_path)
    codes = {finding.code for finding in result.findings}
    assert "BL101" in codes  # the file was checked (`.item()` in the compiled forward), not refused
    about_the_text = [str(w.message) for w in caught
                      if issubclass(w.category, (SyntaxWarning, DeprecationWarning))
                      and ("escape" in str(w.message) or "literal" in str(w.message))]
    assert about_the_text == []
