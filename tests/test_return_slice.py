"""A callee's pass judges only the calls whose value may reach its returns (analysis/returns.py,
`_feeding_calls`); another call of a function not yet judged takes its cache slot, deferred.
The findings are those of judging every call at once, whichever way the value travels."""

from __future__ import annotations

from pathlib import Path

import pytest

from breaklint.analysis import returns
from testdata import check_tree as run, write_tree as write

TREE = {"model.py": """\
    import torch


    def ones(x):
        return torch.ones(3)


    def noted(x):
        return ones(x)


    def mask_of(x):
        return x.sum(dim=1) > 0


    def parts(x):
        return x.split(2)


    def helper(x):
        noted(x)
        if (m := mask_of(x)) is not None:
            pass
        total = 0
        for part in parts(x):
            total += part
        return m, total


    @torch.compile
    def f(x):
        m, total = helper(x)
        if m.any():
            x = x + 1
        y = noted(x)
        if y.sum() > 0:
            x = x - 1
        return x
    """}


def findings(root: Path) -> list[tuple[int, str]]:
    return sorted((f.span.start_line, f.code) for f in run(write(root, TREE)).findings)


def test_only_the_calls_that_feed_a_return_are_judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    judged: list[str] = []
    returned = returns.ReturnFlow._returned

    def judging(self: returns.ReturnFlow, fn: returns.FunctionInfo) -> returns.Returned | None:
        judged.append(fn.qualname)
        return returned(self, fn)

    monkeypatch.setattr(returns.ReturnFlow, "_returned", judging)
    sliced = findings(tmp_path / "sliced")
    sliced_judged = list(judged)

    judged.clear()
    monkeypatch.setattr(returns, "_feeding_calls", lambda outer, found: None)  # every call, at once
    assert findings(tmp_path / "eager") == sliced
    # The walrus's mask reaches the caller (its `.any()` breaks); `noted` keeps the slot that
    # helper's pass gave it: judged a level deeper, `ones` unknown, so `y.sum()` is not a tensor.
    assert 33 in {line for line, _ in sliced} and 36 not in {line for line, _ in sliced}
    assert sorted(sliced_judged) == sorted(judged)  # `noted` is judged when f reads it
    assert sliced_judged.index("noted") > sliced_judged.index("parts")  # deferred, not at once
    assert judged.index("noted") < judged.index("mask_of")


def test_a_call_whose_value_is_never_read_is_not_judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """helper is another file's function: model.py's check judges its returns (helpers.py's
    check runs its rules, whose pass reads what `noted` gives: there it is judged)."""
    judged: list[tuple[str, int]] = []
    returned = returns.ReturnFlow._returned

    def judging(self: returns.ReturnFlow, fn: returns.FunctionInfo) -> returns.Returned | None:
        judged.append((fn.qualname, self.depth))
        return returned(self, fn)

    monkeypatch.setattr(returns.ReturnFlow, "_returned", judging)
    helpers, _, compiled = TREE["model.py"].partition("    @torch.compile\n")
    tree = {"helpers.py": helpers,
            "model.py": "    import torch\n    from helpers import helper\n\n\n    @torch.compile\n"
                        + compiled.replace("        y = noted(x)\n", "        y = x\n")}
    sliced = findings_of(tmp_path / "sliced", tree)
    assert judged.count(("helper", 0)) == 2 and judged.count(("noted", 1)) == 1  # in helpers.py's check
    judged.clear()
    monkeypatch.setattr(returns, "_feeding_calls", lambda outer, found: None)
    assert findings_of(tmp_path / "eager", tree) == sliced and judged.count(("noted", 1)) == 2


def findings_of(root: Path, tree: dict[str, str]) -> list[tuple[str, int, str]]:
    return sorted((f.path.rsplit("/", 1)[-1], f.span.start_line, f.code) for f in run(write(root, tree)).findings)
