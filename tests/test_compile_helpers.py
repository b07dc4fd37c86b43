"""A module's own compile helpers (breaklint/index/compilers.py): which defs and names the
pre-pass takes for one, what their uses compile, and with which options. The ground truth is
testdata/projects/compile_helpers (each pattern run through real Dynamo by test_ground_truth.py)."""

from __future__ import annotations

import json
import textwrap

import pytest

from breaklint.index.builder import summarize
from testdata import write_tree as project

HELPERS = """\
import functools
import torch


def maybe_compile(fn, enabled=True):
    if enabled:
        return torch.compile(fn)
    return fn


def compile_with(**options):
    def wrap(fn):
        return torch.compile(fn, **options)
    return wrap


def static_with(n):
    def wrap(fn):
        return torch.compile(fn, dynamic=False)
    return wrap


def second(tag, fn):
    return torch.compile(fn, mode="max-autotune")


compiler = torch.compile if FLAG else None
static = functools.partial(torch.compile, dynamic=False)
"""


def sites(source: str) -> list[tuple[int, str | None, str]]:
    """(line, target or the decorated def's name, options text) of every compile site outside
    the helpers' own bodies."""
    summary = summarize(textwrap.dedent(source), "m", False)
    names = [fn.qualname for fn in summary.functions]
    return [(s.line, s.target if s.function < 0 else names[s.function], s.text) for s in summary.compile_sites
            if s.target != "fn"]


@pytest.mark.parametrize("use, target, options", [
    ("@maybe_compile\ndef f(x):\n    pass\n", "f", "torch.compile(fn)"),
    ("@compile_with(mode='reduce-overhead')\ndef f(x):\n    pass\n", "f", "compile_with(mode='reduce-overhead')"),
    ("@static_with(3)\ndef f(x):\n    pass\n", "f", "torch.compile(fn, dynamic=False)"),
    ("@compiler\ndef f(x):\n    pass\n", "f", "compiler"),
    ("@compiler(mode='max-autotune')\ndef f(x):\n    pass\n", "f", "compiler(mode='max-autotune')"),
    ("g = compiler(dynamic=False)(step)\n", "step", "compiler(dynamic=False)(step)"),
    ("@static\ndef f(x):\n    pass\n", "f", "functools.partial(torch.compile, dynamic=False)"),
    ("g = maybe_compile(model)\n", "model", "torch.compile(fn)"),
    ("g = second('tag', model)\n", "model", 'torch.compile(fn, mode="max-autotune")'),
    ("def outer(fn):\n    return second(None, fn)\n\ng = outer(model)\n", "model", 'torch.compile(fn, mode="max-autotune")'),
    ("g = static(step)\n", "step", "functools.partial(torch.compile, dynamic=False)"),
    ("if FLAG:\n    chosen = torch.compile\nelse:\n    chosen = lambda fn: fn\n\n@chosen\ndef f(x):\n    pass\n",
     "f", "chosen"),
    ("try:\n    chosen = torch.compile\nexcept AttributeError:\n    chosen = None\n\ng = chosen(step)\n",
     "step", "chosen(step)"),
    ("g = compile_with(dynamic=True)(step)\n", "step", "compile_with(dynamic=True)(step)"),  # as `torch.compile(**o)(f)`
    ("def main(net):\n    run = maybe_compile(net.forward)\n", "net.forward", "torch.compile(fn)"),
])
def test_each_use_of_a_helper_is_a_compile_site_with_its_options(use: str, target: str, options: str) -> None:
    found = sites(HELPERS + use)
    assert [(t, o) for _, t, o in found] == [(target, options)]


@pytest.mark.parametrize("source", [
    # returns its argument: compiles nothing
    "import torch\n\ndef traced(fn):\n    return fn\n\n@traced\ndef f(x):\n    pass\n",
    # compiles a global, not its parameter (that call is a site of its own, of `model`)
    "import torch\n\ndef build(fn):\n    return torch.compile(model)\n\n@build\ndef f(x):\n    pass\n",
    # a nested wrapper the outer def does not return
    "import torch\n\ndef outer():\n    def wrap(fn):\n        return torch.compile(fn)\n    return None\n\n"
    "@outer()\ndef f(x):\n    pass\n",
    # a partial of something else
    "import functools\nimport torch\n\nfast = functools.partial(torch.jit.script, optimize=True)\n\n@fast\ndef f(x):\n    pass\n",
    # rebound to something else before its use
    "import torch\n\ncompiler = torch.compile\ncompiler = print\n\n@compiler\ndef f(x):\n    pass\n",
    # a method that compiles its parameter is not a helper by its bare name
    "import torch\n\nclass K:\n    def wrap(self, fn):\n        return torch.compile(fn)\n\n@wrap\ndef f(x):\n    pass\n",
    # a parameter of the same name hides the module's helper
    "import torch\n\ncompiler = torch.compile\n\ndef build(compiler, f):\n    return compiler(f)\n",
    # used before it is defined: the module would fail there
    "import torch\n\n@later\ndef f(x):\n    pass\n\ndef later(fn):\n    return torch.compile(fn)\n",
])
def test_look_alikes_are_no_compile_site(source: str) -> None:
    assert [site for site in sites(source) if site[1] != "model"] == []


def test_a_function_compiled_by_a_helper_is_a_compiled_name_for_the_recompile_rules() -> None:
    summary = summarize(HELPERS + "@static\ndef f(x, n):\n    return x + n\n\ng = maybe_compile(h)\n", "m", False)
    names = {(c.name, c.target, c.options) for c in summary.compiled_names}
    assert ("f", "f", "functools.partial(torch.compile, dynamic=False)") in names
    assert ("g", "h", "torch.compile(fn)") in names


def test_helpers_compile_code_in_other_files(tmp_path, check) -> None:
    root = project(tmp_path, {
        "ops.py": "import torch\n\ndef rows(x):\n    return x.nonzero()\n\ndef total(x):\n    return x.sum().item()\n",
        "train.py": "import torch\nimport ops\n\ndef maybe_compile(fn):\n    return torch.compile(fn)\n\n"
                    "rows = maybe_compile(ops.rows)\n",
    })
    found = {(f.code, f.path.rsplit("/", 1)[-1], f.span.start_line) for f in check([root], root=root).findings}
    assert found == {("BL104", "ops.py", 4)}  # `total` is not compiled


def test_a_helper_imported_from_another_module_compiles_there_too(tmp_path, check) -> None:
    root = project(tmp_path, {
        "helpers.py": "import torch\n\ndef maybe_compile(fn):\n    return torch.compile(fn)\n",
        "train.py": "from helpers import maybe_compile\n\n@maybe_compile\ndef f(x):\n    return x.sum().item()\n\n"
                    "def g(x):\n    return x.nonzero()\n\nfast_g = maybe_compile(g)\n",
    })
    found = {(f.code, f.span.start_line) for f in check([root], root=root).findings}
    assert found == {("BL101", 5), ("BL104", 8)}


def test_a_helper_re_exported_by_its_package_compiles_where_it_is_imported_from_there(tmp_path, check) -> None:
    root = project(tmp_path, {
        "pkg/__init__.py": "from .utils import maybe_compile\n",
        "pkg/utils.py": "import torch\n\ndef maybe_compile(fn):\n    return torch.compile(fn)\n",
        "train.py": "from pkg import maybe_compile\n\n@maybe_compile\ndef f(x):\n    return x.sum().item()\n",
    })
    assert [(f.code, f.span.start_line) for f in check([root], root=root).findings] == [("BL101", 5)]


TRAINER = """\
import torch


class Trainer:
    def __init__(self):
        self.step = self.maybe_compile(self._step)
        self.named = self.maybe_compile(fn=self._step)
        self.whole = self.compile_self()

    def maybe_compile(self, fn):
        return torch.compile(fn, mode="max-autotune") if FLAG else fn

    def compile_self(self):
        return torch.compile(self)

    @staticmethod
    def static(fn):
        return torch.compile(fn)

    def use_static(self, g):
        return self.static(g)


class Other:
    def run(self, trainer):
        return trainer.maybe_compile(self.run)
"""


def test_a_method_that_compiles_its_parameter_is_a_helper_to_its_class() -> None:
    """`self.maybe_compile(self._step)` compiles `self._step`, also where the helper is defined
    below its use; a keyword argument, a method compiling `self`, a staticmethod, and another
    object's `maybe_compile` are no such use."""
    assert set(sites(TRAINER)) == {(6, "self._step", 'torch.compile(fn, mode="max-autotune")'),
                                   (14, "self", "torch.compile(self)")}


DDP_SCRIPT = """\
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def second(cfg, module):
    return torch.compile(module) if cfg.compile else module


class Net(nn.Module):
    def forward(self, x):
        return x + 1


def train(cfg, x):
    wrapped = second(cfg, DDP(Net()))
    wrapped(x)
    other = second(DDP(Net()), Net())
    other(x)
"""


def test_the_ddp_rules_read_what_a_helper_compiles(tmp_path, check) -> None:
    """`second(cfg, DDP(Net()))` compiles the DDP wrapper (the helper's second parameter, as the
    index recorded it): BL603 at its call; `second(DDP(Net()), Net())` compiles the plain module."""
    root = project(tmp_path, {"train.py": DDP_SCRIPT})
    found = [(f.code, f.span.start_line) for f in check([root], root=root).findings if f.code.startswith("BL6")]
    assert found == [("BL603", 17)]


def test_a_changed_helper_changes_what_its_importers_compile_with_a_cache(tmp_path, monkeypatch) -> None:
    # The importer's facts are digested with the helper they were given (engine.py,
    # `_seed_imported_helpers`): the importer's cached facts and findings follow the helper.
    from click.testing import CliRunner

    from breaklint.cli import cli

    root = project(tmp_path, {
        "helpers.py": "import torch\n\ndef maybe_compile(fn):\n    return torch.compile(fn)\n",
        "train.py": "from helpers import maybe_compile\n\n@maybe_compile\ndef f(x):\n    return x.sum().item()\n",
    })
    monkeypatch.chdir(root)  # the cache lands in the project

    def codes() -> list[str]:
        result = CliRunner().invoke(cli, ["check", "--format", "json", "--exit-zero", str(root)])
        assert result.exit_code == 0, result.output
        return [finding["code"] for finding in json.loads(result.output)]

    assert codes() == ["BL101"]
    assert (root / ".breaklint_cache").is_dir()
    (root / "helpers.py").write_text("import torch\n\ndef maybe_compile(fn):\n    return fn\n", encoding="utf-8")
    assert codes() == []
    (root / "helpers.py").write_text("import torch\n\ndef maybe_compile(fn):\n    return torch.compile(fn, dynamic=False)\n",
                                     encoding="utf-8")
    assert codes() == ["BL101"]
