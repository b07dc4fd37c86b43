"""The facts #17 added, on small trees: dunder reachability across files, an entry point's call
sites, and the index fact behind the first (the ground truth for each is in testdata/rules)."""

from __future__ import annotations

import pytest

from breaklint.index.builder import summarize
from testdata import write_tree as project

ITEM = "x.sum().item()"


@pytest.fixture(autouse=True)
def _in_project(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)


def flagged(result, code: str = "BL101") -> set[tuple[str, int]]:
    return {(f.path.rsplit("/", 1)[-1], f.span.start_line) for f in result.findings if f.code == code}


def test_the_index_records_the_dunders_a_statement_calls() -> None:
    summary = summarize(
        "def f(x, cfg):\n    CFG.scale = 2\n    if A == B:\n        pass\n    for i in PLAN:\n        pass\n"
        "    self_like = 1\n\nclass K:\n    def m(self):\n        self.x = 1\n", "m", False)
    by_name = {fn.qualname: fn for fn in summary.functions}
    assert by_name["f"].implicit == ("CFG.__setattr__", "A.__eq__", "PLAN.__iter__")
    assert by_name["K.m"].implicit == ()  # `self.x = 1`: the class's own business


@pytest.mark.parametrize("statement, dunder", [
    ("CFG.scale = 2", "__setattr__"),
    ("ok = CFG == CFG", "__eq__"),
    ("for _ in CFG:\n        pass", "__iter__"),
    ("x = CFG(x)", "__call__"),
])
def test_dunders_of_an_instance_in_another_file_are_in_the_region(tmp_path, check, statement, dunder) -> None:
    root = project(tmp_path, {
        "conf.py": f"import torch\n\nclass Config:\n    def {dunder}(self, *args):\n"
                   "        return torch.ones(2).sum().item()\n\nCFG = Config()\n",
        "model.py": f"import torch\nfrom conf import CFG\n\n@torch.compile\ndef f(x):\n    {statement}\n    return x\n",
    })
    assert flagged(check([root], root=root)) == {("conf.py", 5)}


def test_a_dunder_of_an_unknown_value_is_not_followed(tmp_path, check) -> None:
    root = project(tmp_path, {"m.py": f"""\
        import torch

        class Config:
            def __setattr__(self, k, v):
                return torch.ones(2).sum().item()

        @torch.compile
        def f(x, cfg):
            cfg.scale = 2   # a parameter: its class is not known
            return x
        """})
    assert flagged(check([root], root=root)) == set()


def test_an_entry_point_takes_what_its_files_calls_pass(tmp_path, check) -> None:
    body = "import torch\n\n@torch.compile\ndef f(x, flag):\n    if flag:\n        return x * 2\n    return x\n\n"
    constant = project(tmp_path / "a", {"m.py": body + "def run(x):\n    f(x, True)\n    f(x, flag=False)\n"})
    assert flagged(check([constant], root=constant), "BL102") == set()
    mixed = project(tmp_path / "b", {"m.py": body + "def run(x):\n    f(x, True)\n    f(x, x.sum() > 0)\n"})
    assert flagged(check([mixed], root=mixed), "BL102") == {("m.py", 5)}
    uncalled = project(tmp_path / "c", {"m.py": body})
    assert flagged(check([uncalled], root=uncalled), "BL102") == {("m.py", 5)}
