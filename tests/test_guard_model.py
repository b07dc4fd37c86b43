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


SCOPES = """\
import torch

shared = torch.compile(g)


def evaluate(x):
    model = torch.compile(net)
    def inner():
        return model(x)
    model(x)
    return shared(x), inner()


def train(x, shared):
    model = make()
    model(x)
    return shared(x)


def rebind():
    global late
    late = torch.compile(h)


def later(x):
    return late(x)


net = make()


def prepare():
    net.compile()


def step(x):
    return net(x)
"""


def test_a_compiled_call_is_one_of_the_name_the_call_reads() -> None:
    """A plain name assigned in a function is that function's own: `train`'s `model` and its
    parameter `shared` are not the compiled ones; a closure reads its enclosing function's, any
    function the module's, and `global` makes a function's binding the module's; `net.compile()`
    in a function that binds no `net` compiles the module's, which another function calls."""
    summary = summarize(SCOPES, "m", False)
    assert [(c.callee, c.place.line) for c in summary.compiled_calls] == [
        ("model", 9), ("model", 10), ("shared", 11), ("late", 26), ("net", 37)]


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


def test_the_indexer_records_container_writes_closure_cells_and_imported_calls() -> None:
    source = ("import torch\nfrom .ops import fast_fn, Config\nfrom os import path\n\n"
              "def make():\n    scale = 2\n\n    def apply(x):\n        return x * scale\n\n"
              "    def set_scale(value):\n        nonlocal scale\n        scale = value\n\n    return apply, set_scale\n\n"
              "apply, set_scale = make()\nfast = torch.compile(apply)\n\n"
              "def run(x):\n    xs = [x]\n    d = {'a': x}\n    other = {}\n    for _ in range(3):\n        fast(xs)\n"
              "        xs.append(x)\n    fast(d)\n    d['b'] = x\n    other['c'] = x\n    fast(d)\n    set_scale(3)\n"
              "    fast_fn(x, 2)\n    Config(2)\n    path.join('a')\n")
    summary = summarize(source, "pkg.m", False)
    writes = {(w.subject, w.action, w.name, w.value, w.place.line, len(w.loops)) for w in summary.state_writes}
    assert writes == {("scale", "nonlocal", "scale", "value", 13, 0), ("xs", "method", "append", "x", 26, 1),
                      ("d", "local-item", "'b'", "x", 28, 0), ("set_scale", "call", "set_scale", "3", 31, 0)}
    # `other` is not passed to a compiled call; a class and the standard library are not recorded.
    assert [(c.callee, c.place.line, c.args) for c in summary.imported_calls] == [
        ("fast_fn", 32, ((None, "x"), (None, "2")))]


@pytest.mark.parametrize(("calls", "count", "guard"), [
    ("    f(x)\n    f(x.t())\n", 1, "tensor 'x'"),
    ("    f(x)\n    f(x.t())\n    f(x[:, ::2])\n", 2, "tensor 'x'"),
    ("    f(x)\n    f(x.t().contiguous())\n", None, None),
    ("    f({'a': x})\n    f({'a': x, 'b': x})\n", 1, "len(x) != 1"),
    ("    f({'a': x})\n    f({'a': y})\n", None, None),
    ("    for t in ts:\n        f(x, int(t.sum()))\n", 1, "v == "),
    ("    f(x, t.item())\n", None, None),  # one call: nothing to recompile
    ("    f(x, int(n))\n    f(x, 2)\n", None, None),  # int(n): not a tensor's data
])
def test_layout_structure_and_data_predictions(check, tmp_path: Path, calls: str, count: int | None,
                                               guard: str | None) -> None:
    found = _findings(check, tmp_path, ARGS + calls)
    if count is None:
        assert found == []
        return
    assert len(found) == 1 and found[0][0] == "BL211"
    assert count_phrase(count) in found[0][2] and guard in found[0][2], found[0][2]


def test_container_writes_between_calls(check, tmp_path: Path) -> None:
    head = "import torch\n\n@torch.compile\ndef f(xs):\n    return xs\n\ndef run(x):\n"
    grows = head + "    xs = [x]\n    for _ in range(4):\n        f(xs)\n        xs.append(x)\n"
    assert [(c, line) for c, line, _ in _findings(check, tmp_path, grows)] == [("BL211", 11)]
    assert count_phrase(3) in _findings(check, tmp_path, grows)[0][2]
    unbounded = grows.replace("range(4)", "batches")
    assert count_phrase(LIMIT) in _findings(check, tmp_path, unbounded)[0][2]
    replaced = head + "    xs = [x, x]\n    for _ in range(4):\n        f(xs)\n        xs[0] = x\n"
    assert _findings(check, tmp_path, replaced) == []  # an index: the length stays
    existing = head + "    d = {'a': x}\n    f(d)\n    d['a'] = x\n    f(d)\n"
    assert _findings(check, tmp_path, existing) == []  # a key it already has
    after = head + "    xs = [x]\n    f(xs)\n    xs.append(x)\n"
    assert _findings(check, tmp_path, after) == []  # no call after the write


CLOSURE = ("import torch\n\ndef make():\n    on = {first}\n\n    def apply(x):\n        return x * 2 if on else x\n\n"
           "    def set_on(value):\n        nonlocal on\n        on = value\n\n    return apply, set_on\n\n"
           "apply, set_on = make()\nfast = torch.compile(apply)\n\ndef run(x):\n{body}")


@pytest.mark.parametrize(("first", "body", "count"), [
    ("False", "    fast(x)\n    set_on(True)\n    fast(x)\n", 1),
    ("2", "    fast(x)\n    set_on(3)\n    fast(x)\n    set_on(4)\n    fast(x)\n", 1),  # an int: then dynamic
    ("False", "    set_on(True)\n    fast(x)\n    fast(x)\n", None),  # set before the calls
    ("False", "    fast(x)\n    set_on(False)\n    fast(x)\n", None),  # the same value
])
def test_closure_cell_predictions(check, tmp_path: Path, first: str, body: str, count: int | None) -> None:
    found = _findings(check, tmp_path, CLOSURE.format(first=first, body=body))
    if count is None:
        assert found == []
        return
    assert [(code, line) for code, line, _ in found] == [("BL213", 20)] and count_phrase(count) in found[0][2]


def test_calls_of_another_modules_compiled_callable(check, tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "ops.py").write_text(
        "import torch\n\ndef _scale(x, k: int):\n    return x * k\n\nfast_scale = torch.compile(_scale)\n", encoding="utf-8")
    (tmp_path / "pkg" / "run.py").write_text(
        "from .ops import fast_scale\n\ndef main(x):\n    fast_scale(x, 2)\n    fast_scale(x, k=3)\n", encoding="utf-8")
    (tmp_path / "pkg" / "same.py").write_text(
        "from .ops import fast_scale\n\ndef main(x):\n    fast_scale(x, 2)\n    fast_scale(x, 2)\n", encoding="utf-8")
    found = [(Path(f.path).name, f.code, f.span.start_line) for f in check([tmp_path], root=tmp_path).findings]
    assert found == [("run.py", "BL211", 5)]


def test_dynamic_false_call_form_needs_evidence(check, tmp_path: Path) -> None:
    head = "import torch\n\ndef g(p, lr):\n    return p * lr\n\nfast = torch.compile(g, dynamic=False)\n\n"
    per_parameter = head + "def step(model):\n    for p in model.parameters():\n        fast(p, 0.1)\n"
    silent = head + "def step(x):\n    for _ in range(3):\n        fast(x, 0.1)\n"
    path = tmp_path / "m.py"
    path.write_text(per_parameter, encoding="utf-8")
    found = [(f.code, f.span.start_line, f.confidence.value) for f in check([path], root=tmp_path).findings]
    assert found == [("BL210", 6, "likely")]
    path.write_text(silent, encoding="utf-8")
    assert [f.code for f in check([path], root=tmp_path).findings] == []
