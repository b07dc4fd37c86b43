"""The guard facts the indexer records (summary.CompiledCall & co.) and the guard model's
predictions from them (analysis/guards.py), without torch: what each is proven against on real
Dynamo lives in testdata/rules/BL21x (tests/test_ground_truth.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from breaklint.analysis.guards import LIMIT, count_phrase
from breaklint.index.builder import summarize
from breaklint.index.summary import Loop

SOURCE = '''import torch

USE = False
net = Net()
model = torch.compile(net)


@torch.compile
def f(x, n):
    return x * n


def flip():
    global USE
    USE = True


def main():
    x = torch.randn(8)
    f(x, 2)
    for i in range(3):
        f(x, i)
    net.eval()
    model.scale = 3.0
    with torch.no_grad():
        model(x)
    CFG["a"] = 1
    flip()
'''


def test_the_indexer_records_compiled_names_their_calls_and_writes() -> None:
    summary = summarize(SOURCE, "m", False)
    assert [(n.name, n.target) for n in summary.compiled_names] == [("model", "net"), ("f", "f")]
    calls = [(c.callee, c.place.line, c.args, c.loops, c.grad_disabled) for c in summary.compiled_calls]
    assert calls == [
        ("f", 20, ((None, "x"), (None, "2")), (), False),
        ("f", 22, ((None, "x"), (None, "i")), (Loop("i", "range(3)"),), False),
        ("model", 26, ((None, "x"),), (), True),
    ]
    main = next(i for i, fn in enumerate(summary.functions) if fn.name == "main")
    assert all(c.place.scope == main for c in summary.compiled_calls)
    writes = {(w.subject, w.action, w.name, w.value, w.place.line) for w in summary.state_writes}
    assert writes == {("USE", "global", "USE", "True", 15), ("model", "attr", "scale", "3.0", 24),
                      ("CFG", "item", '"a"', "1", 27), ("net", "method", "eval", "", 23), ("flip", "call", "flip", "", 28)}


def test_a_file_that_compiles_nothing_records_nothing() -> None:
    summary = summarize(SOURCE.replace("torch.compile(net)", "net").replace("@torch.compile\n", ""), "m", False)
    assert (summary.compiled_names, summary.compiled_calls, summary.state_writes) == ((), (), ())


def test_columns_count_code_points_and_a_def_resets_loops_and_grad() -> None:
    source = ("import torch\nf = torch.compile(g)\nwith torch.no_grad():\n    for t in range(2):\n"
              "        def inner(x):\n            return f(x)\n        é = f('é', t)\n")
    calls = summarize(source, "m", False).compiled_calls
    assert [(c.place.line, c.place.col, c.place.end_col, bool(c.loops), c.grad_disabled) for c in calls] == [
        (6, 20, 24, False, False),  # inside the def: neither the loop nor no_grad is around its body
        (7, 13, 22, True, True),  # `é` is one column, two bytes
    ]


def _findings(check, tmp_path: Path, source: str) -> list[tuple[str, int, str]]:
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    return [(f.code, f.span.start_line, f.message) for f in check([path], root=tmp_path).findings
            if f.code.startswith("BL21")]


ARGS = "import torch\n\n@torch.compile\ndef f(x, v=None):\n    return x\n\ndef run(x):\n"


@pytest.mark.parametrize(("calls", "count", "guard"), [
    ("    f(x, 2)\n    f(x, 3)\n", 1, "v == 2"),
    ("    f(x, 'a')\n    f(x, 'b')\n    f(x, 'c')\n", 2, "v == 'a'"),
    ("    for v in 'abcdefghij':\n        f(x, v)\n", None, None),  # a str, not a literal sequence of values
    ("    for v in ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j']:\n        f(x, v)\n", LIMIT, "v == 'a'"),
    ("    f(x)\n    f(x, x)\n", 1, "v is None"),
    ("    f(x, v=(1, 2))\n    f(x, (3,))\n", 1, "len(v) == 2"),
    ("    f(x, 2)\n    f(x, 2)\n", None, None),
    ("    f(x, y)\n    f(x, z)\n", None, None),  # unknown values: no prediction
    ("    f(*x)\n    f(x, 3)\n", None, None),  # unpacking: the parameters are unknown
])
def test_argument_predictions(check, tmp_path: Path, calls: str, count: int | None, guard: str | None) -> None:
    found = _findings(check, tmp_path, ARGS + calls)
    if count is None:
        assert found == []
        return
    assert len(found) == 1
    code, _, message = found[0]
    assert code == "BL211" and count_phrase(count) in message and f"{guard}..." in message


MODULE = ("import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    def __init__(self):\n"
          "        super().__init__()\n        self.drop = nn.Dropout(0.1)\n        self.scale = 2.0\n\n"
          "    def forward(self, x):\n        return self.drop(x) * self.scale\n\n"
          "net = Net()\nmodel = torch.compile(net)\n\ndef run(x):\n    model(x)\n")


@pytest.mark.parametrize(("change", "guard"), [
    ("    net.eval()\n", ".training == True"),
    ("    model.train(False)\n", ".training == True"),
    ("    model.train()\n", None),  # already training: nothing changes
    ("    net.scale = 3.0\n", "self.scale == 2.0"),
    ("    net.scale = 2.0\n", None),  # the same value
    ("    net.other = 3.0\n", None),  # forward does not read it
    ("    net.half()\n", "dtype mismatch"),
])
def test_module_state_predictions(check, tmp_path: Path, change: str, guard: str | None) -> None:
    found = _findings(check, tmp_path, MODULE + change + "    model(x)\n")
    if guard is None:
        assert found == []
        return
    assert [(code, line) for code, line, _ in found] == [("BL212", 18)] and guard in found[0][2]


def test_module_state_needs_calls_on_both_sides(check, tmp_path: Path) -> None:
    assert _findings(check, tmp_path, MODULE.replace("    model(x)\n", "    net.eval()\n    model(x)\n")) == []
    looped = MODULE.replace("    model(x)\n", "    for _ in range(3):\n        model(x)\n")
    assert _findings(check, tmp_path, looped + "    net.eval()\n") == []  # no call after it
    assert [code for code, _, _ in _findings(check, tmp_path, looped + "    net.eval()\n    model(x)\n")] == ["BL212"]
