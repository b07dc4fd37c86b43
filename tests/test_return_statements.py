"""A last-level callee pass runs only the statements its returns' values may depend on
(analysis/returns.py, `_statements_read`): what it finds is what a pass of every statement
finds, for callees of every shape here and for every callee judged at that level in the
rules' testdata and the examples."""

from __future__ import annotations

from pathlib import Path

import pytest
from testdata import ROOT, TESTDATA, check_tree, write_tree

from breaklint.analysis import returns
from breaklint.check.engine import Engine
from breaklint.check.registry import RuleSet
from breaklint.config import Config

TREE = {"model.py": """\
    import contextlib
    import torch

    LIMIT = 3


    def last(x, n):
        unused = torch.ones(n)
        k = n
        global LIMIT
        with contextlib.suppress(ValueError) as quiet:
            scale = x.sum()
        try:
            shift = x.mean()
        except RuntimeError as error:
            shift = 0
        for part in x.split(2):
            total = part.max()
        if (m := x.amax()) is not None:
            pass

        def inner(y):
            return y + 1

        while k > 1:
            k -= 1
        if n:
            return scale + shift, m, inner(total), quiet
        return x.sum(), error, total, LIMIT


    def middle(x):
        return last(x, 2)


    @torch.compile
    def f(x):
        a, b, c, d = middle(x)
        if a > 0:
            x = x + 1
        if b.any():
            x = x - 1
        return x
    """}


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Judges each last-level callee twice, sliced and whole, and says the two agree."""
    returned, statements_read = returns.ReturnFlow._returned, returns._statements_read
    seen = {"compared": 0, "skipped": 0}

    def both(self: returns.ReturnFlow, fn: returns.FunctionInfo) -> returns.Returned | None:
        found = returned(self, fn)
        read = (fn._derived or {}).pop("statements read", None)
        if self.depth + 2 < returns.MAX_DEPTH or read is None:
            return found
        monkeypatch.setattr(returns, "_statements_read", lambda outer, found_returns: None)  # every statement
        try:
            assert returned(self, fn) == found, fn.qualname
        finally:
            monkeypatch.setattr(returns, "_statements_read", statements_read)
            fn._derived.pop("statements read", None)  # type: ignore[union-attr]
        outer = fn
        while outer.parent is not None:
            outer = outer.parent
        seen["compared"] += 1
        seen["skipped"] += sum(1 for s in outer.node.body.body if s not in read)
        return found

    monkeypatch.setattr(returns.ReturnFlow, "_returned", both)
    return seen


def test_a_last_level_pass_finds_what_a_pass_of_every_statement_finds(tmp_path: Path, compared: dict[str, int]) -> None:
    check_tree(write_tree(tmp_path, TREE))
    assert compared == {"compared": 1, "skipped": 3}  # `unused = ...`, `k = n` and the `while` are not run


def test_so_does_every_last_level_pass_of_the_testdata(monkeypatch: pytest.MonkeyPatch, compared: dict[str, int]) -> None:
    monkeypatch.chdir(ROOT)
    for corpus in (ROOT / "examples", TESTDATA):
        config = Config(root=ROOT)
        assert Engine(config, RuleSet(config), jobs=1).check([corpus]).findings
    assert compared["compared"] >= 1
