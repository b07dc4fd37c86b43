"""The fast paths change nothing: the cache, the worker processes and reporting only some files
(the project around them indexed) all give the findings of one cold run in one process. What
those findings are is held by tests/test_findings_snapshot.py and the rules' own tests."""

from __future__ import annotations

import ast
import inspect
import os
import sys
import textwrap
from pathlib import Path

import pytest

from breaklint.check.salt import project_cache
from breaklint.config import Config
from breaklint.check.engine import CheckResult, Engine, parse_file
from breaklint.check.registry import RuleSet
from testdata import ROOT

CORPORA = [ROOT / "examples", ROOT / "testdata"]


def run(paths: list[Path], root: Path, **options: object) -> CheckResult:
    settings = {k: v for k, v in options.items() if k not in ("report", "jobs", "cache")}
    config = Config(root=root, **settings)  # type: ignore[arg-type]
    engine = Engine(config, RuleSet(config), jobs=options.get("jobs", 1),  # type: ignore[arg-type]
                    cache=options.get("cache"))  # type: ignore[arg-type]
    return engine.check(paths, report=options.get("report"))  # type: ignore[arg-type]


def same(fast: CheckResult, reference: CheckResult) -> None:
    assert fast.files_checked == reference.files_checked
    assert [repr(f) for f in fast.findings] == [repr(f) for f in reference.findings]


TRICKY = {
    # Quirks the pre-pass must copy from the libcst indexer: calls in decorators and defaults
    # belong to the decorated function, `elif` under `is_compiling()`, keyword-before-star
    # arguments, shadowed defs, register_buffer with a concatenated name, walrus, lambdas.
    "pkg/__init__.py": "from .core import Core as Core\nfrom . import helpers\n",
    "pkg/helpers.py": """
        import functools
        import torch

        def scale(x, k=torch.ones(1).item()):
            return x * k

        def twice(fn):
            @functools.wraps(fn)
            def inner(*a, **k):
                return fn(*a, **k)
            return inner

        def helper(x):
            if torch.compiler.is_compiling():
                pass
            elif x.sum() > 0:
                return x.item()
            return [y.item() for y in x if (z := y.sum()) > 0]

        def helper(x):  # shadows the one above
            return x.tolist()
        """,
    "pkg/core.py": """
        import torch
        from torch import nn
        from .helpers import scale, helper, twice

        class Core(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("st" "eps", torch.zeros(1))
                self.register_buffer("steps", torch.zeros(1))
                self.count = 0
                self.layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])

            @twice
            def forward(self, x, *rest, n=None):
                self.count += 1
                self.steps += 1
                f = lambda t: t.item()
                for a, (b, c) in zip(x, [(1, 2)]):
                    pass
                return scale(helper(x), *rest, k=f(x)) + float(x.sum())

            @staticmethod
            def tool(x):
                return bool(x.sum())
        """,
    "run.py": """
        import torch
        import pkg
        from pkg import Core

        model = torch.compile(Core().eval())
        fast = torch.compile(pkg.helpers.scale, mode=None)
        also = torch.compile(dynamic=True)(pkg.helpers.helper)
        tool = torch.compile(Core.tool)
        """,
    "noregion.py": "def f(x):\n    return x.item()  # breaklint: ignore[BL101]\n",
    # A rule that walks another file's tree and matches its nodes by identity with that file's
    # index (the compile site below, for the class in blocks.py): that file must be tree-built.
    "blocks.py": """
        import torch
        from torch import nn

        class Block(nn.Module):
            def __init__(self, dim, layer_idx):
                super().__init__()
                self.proj = nn.Linear(dim, dim)
                self.layer_idx = layer_idx

            def forward(self, x):
                return self.proj(x) * (1.0 / (self.layer_idx + 1))
        """,
    "train_blocks.py": """
        import torch
        from blocks import Block

        blocks = [torch.compile(Block(8, layer_idx=i)) for i in range(4)]
        """,
    "broken.py": "def f(:\n    pass\n",
    "latin.py": b"# -*- coding: ascii -*-\nname = 'caf\xe9'\n",
}


def write(root: Path, files: dict[str, object]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(str(content)), encoding="utf-8")


@pytest.mark.parametrize("settings", [{}, {"assume_forward_compiled": False}, {"scope": "all"},
                                      {"entry_points": ("pkg.helpers:twice",)}, {"ignore": ("BL101",)}],
                         ids=["default", "explicit-only", "scope-all", "configured", "ignore"])
def test_workers_cache_and_reported_files_agree_on_tricky_project(settings: dict[str, object], tmp_path: Path,
                                                                  monkeypatch) -> None:
    """Two jobs, a cold and a warm cache, and each file reported alone (with the project around
    it indexed) give what one job gives with no cache."""
    write(tmp_path, TRICKY)
    monkeypatch.chdir(tmp_path)
    plain = run([tmp_path], tmp_path, **settings)
    assert {f.code for f in plain.findings} >= {"BL001", "BL002"}
    same(run([tmp_path], tmp_path, jobs=2, **settings), plain)
    cache = project_cache(tmp_path.parent / (tmp_path.name + "-cache"))
    same(run([tmp_path], tmp_path, cache=cache, **settings), plain)
    same(run([tmp_path], tmp_path, cache=cache, **settings), plain)
    for path in sorted({f.path for f in plain.findings}):
        alone = run([tmp_path], tmp_path, report=[tmp_path / path], **settings)
        assert [repr(f) for f in alone.findings] == [repr(f) for f in plain.findings if f.path == path]


# --- the pre-pass itself ----------------------------------------------------------------------
def _normalized(summary) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Expressions compared as trees: libcst keeps a node's parentheses, ast's span does not."""
    def expr(text: str | None) -> str | None:
        return None if text is None else ast.dump(ast.parse(f"({text})", mode="eval"))

    def bindings(found):  # type: ignore[no-untyped-def]
        return [(name, [(expr(e), it) for e, it in values]) for name, values in found]

    return {
        "imports": (sorted(summary.aliases), summary.local_defs),
        "functions": [(f.qualname, f.class_index, f.parent, f.self_name, f.params, [expr(c) for c in f.calls],
                       [expr(r) for r in f.refs], bindings(f.assigns), f.nested, f.global_names, f.line,
                       [expr(d) for d in f.decorators], f.call_guards,
                       [(n, expr(a), expr(d), p) for n, a, d, p in f.signature]) for f in summary.functions],
        "classes": [(c.qualname, [expr(b) for b in c.bases], bindings(c.attrs), c.tensor_attrs, c.attr_guards)
                    for c in summary.classes],
        "assigns": bindings(summary.assigns),
        "sites": [(s.line, expr(s.target), s.function, s.scope, s.method_form) for s in summary.compile_sites],
        "disabled": summary.disabled,
    }


def _python_files(tmp_path: Path) -> list[Path]:
    write(tmp_path, {k: v for k, v in TRICKY.items() if k not in ("broken.py", "latin.py")})
    files = sorted(tmp_path.rglob("*.py")) + sorted((ROOT / "breaklint").rglob("*.py"))
    files += sorted((ROOT / "examples").rglob("*.py")) + sorted((ROOT / "testdata").rglob("*.py"))
    stdlib = Path(inspect.getfile(inspect)).parent
    files += [stdlib / name for name in ("inspect.py", "dataclasses.py", "argparse.py", "typing.py", "ast.py")]
    try:
        import importlib.util

        spec = importlib.util.find_spec("torch")
        if spec is not None and spec.origin:  # a few real nn.Modules, without importing torch
            torch_root = Path(spec.origin).parent
            files += sorted((torch_root / "nn" / "modules").glob("[a-c]*.py"))
    except (ImportError, ValueError):
        pass
    return files


def test_walk_visits_what_libcst_visits(tmp_path: Path) -> None:
    """walk.visit calls on_visit/on_leave for the same nodes in the same order as libcst's own
    visit; without trivia, for the same nodes minus whitespace, comments and punctuation."""
    import libcst as cst

    from breaklint.infra.walk import is_trivia, visit

    class Record(cst.CSTVisitor):
        def __init__(self) -> None:
            self.seen: list[tuple[str, int]] = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            self.seen.append(("visit", id(node)))
            return not isinstance(node, cst.Lambda)  # a pruned subtree stays pruned

        def on_leave(self, original_node: cst.CSTNode) -> None:
            self.seen.append(("leave", id(original_node)))

    checked = 0
    for path in _python_files(tmp_path)[::3]:
        tree = parse_file(path, tmp_path).tree  # type: ignore[union-attr]
        nodes: dict[int, cst.CSTNode] = {}

        class Keep(Record):
            def on_visit(self, node: cst.CSTNode) -> bool:
                nodes[id(node)] = node
                return super().on_visit(node)

        libcst_order, full, content = Keep(), Record(), Record()
        tree.visit(libcst_order)
        visit(tree, full)
        visit(tree, content, trivia=False)
        assert full.seen == libcst_order.seen, path
        assert content.seen == [e for e in libcst_order.seen if not is_trivia(type(nodes[e[1]]))], path
        checked += 1
    assert checked > 10


# --- cache and workers --------------------------------------------------------------------------
@pytest.mark.parametrize("corpus", CORPORA, ids=lambda p: p.name)
def test_jobs_and_cache_change_nothing(corpus: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    plain = run([corpus], ROOT)
    same(run([corpus], ROOT, jobs=2), plain)
    cache = tmp_path / "cache"
    same(run([corpus], ROOT, cache=project_cache(cache)), plain)  # cold: fills it
    same(run([corpus], ROOT, cache=project_cache(cache)), plain)  # warm: answers from it
    same(run([corpus], ROOT, cache=project_cache(cache), jobs=2), plain)


def test_the_bytes_are_packed_only_for_processes_to_come(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """_Run._pack_data: a cold run of many files compresses the files' bytes once, before the
    processes forked after the pre-pass start (with one job, after the pre-pass); a warm run that
    starts none keeps them as read (a warm run on torch's tree spent a third of its time
    compressing them). The pre-pass's tasks, which hold the bytes as read, are emptied: they were
    held to the end of the run beside the packed copy (the torch tree's largest process, two
    jobs: 416 -> 387 MB). The findings are the same."""
    from breaklint.check import engine as engine_module

    monkeypatch.setattr(engine_module, "_RAW_BYTES", 0)  # every tree is a large one
    for i in range(engine_module._POOL_FROM + 6):
        (tmp_path / f"m{i}.py").write_text(f"import torch\n\n\n@torch.compile\ndef f{i}(x):\n    return x.item() + {i}\n")
    packed: list[bool] = []
    left: list[int] = []
    checked, prepass = engine_module._Run._check_scanned, engine_module._Run._prepass

    def recording(run_: engine_module._Run, *args):  # type: ignore[no-untyped-def]
        found = checked(run_, *args)
        packed.append(all(isinstance(data, engine_module._Packed) for data in run_.data))
        return found

    def emptying(run_: engine_module._Run, tasks: list, *args, **kwargs):  # type: ignore[no-untyped-def]
        prepass(run_, tasks, *args, **kwargs)
        left.append(len(tasks))

    monkeypatch.setattr(engine_module._Run, "_check_scanned", recording)
    monkeypatch.setattr(engine_module._Run, "_prepass", emptying)
    cache = tmp_path.parent / (tmp_path.name + "-cache")
    cold = run([tmp_path], tmp_path, cache=project_cache(cache), jobs=2)
    with (tmp_path / "m0.py").open("a") as edited:  # else the run's whole answer comes from the cache
        edited.write("# edited\n")
    warm = run([tmp_path], tmp_path, cache=project_cache(cache), jobs=2)
    alone = run([tmp_path], tmp_path, jobs=1)
    assert packed == [True, False, True]
    assert left == [0, 0, 0]
    same(warm, cold)
    same(alone, cold)
    assert len(cold.findings) == engine_module._POOL_FROM + 6


def test_an_edit_is_seen_through_the_cache(tmp_path: Path, monkeypatch) -> None:
    write(tmp_path, TRICKY)
    monkeypatch.chdir(tmp_path)
    cache = tmp_path.parent / (tmp_path.name + "-cache")
    run([tmp_path], tmp_path, cache=project_cache(cache))
    helpers = tmp_path / "pkg" / "helpers.py"
    helpers.write_text(helpers.read_text().replace("return x.tolist()", "return x.nonzero()"))
    (tmp_path / "extra.py").write_text("import torch\n\n@torch.compile\ndef g(x):\n    return x.item()\n")
    warm = run([tmp_path], tmp_path, cache=project_cache(cache))
    same(warm, run([tmp_path], tmp_path))
    assert any(f.code == "BL104" and f.path == "pkg/helpers.py" for f in warm.findings)
    assert any(f.path == "extra.py" for f in warm.findings)


def _edit_checked_by_a_ready_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[CheckResult, list[int]]:
    """A warm two-job run after one file changed, with a ready worker (engine._ready_worker:
    this test process has libcst already, which would make it pointless): its result, and how
    many files the worker checked (None: it died)."""
    from breaklint.check import engine
    from breaklint.infra.parallel import ReadyWorker

    write(tmp_path, TRICKY)
    extra = tmp_path / "extra.py"
    extra.write_text("import torch\n\n@torch.compile\ndef g(x):\n    return x.item()\n")
    monkeypatch.chdir(tmp_path)
    cache = tmp_path.parent / (tmp_path.name + "-cache")
    run([tmp_path], tmp_path, cache=project_cache(cache))
    extra.write_text(extra.read_text() + "\n\ndef added(x):\n    return x.tolist()\n")  # the benchmark's edit
    monkeypatch.setattr(engine.deferred, "imported", lambda name: False)
    mapped: list[int] = []
    real_map = ReadyWorker.map

    def counted(self: ReadyWorker, *args: object, **kwargs: object) -> object:
        found = real_map(self, *args, **kwargs)  # type: ignore[arg-type]
        mapped.append(-1 if found is None else len(found))
        return found

    monkeypatch.setattr(ReadyWorker, "map", counted)
    return run([tmp_path], tmp_path, cache=project_cache(cache), jobs=2), mapped


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a ready worker is forked")
def test_an_edit_checked_by_a_ready_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    warm, mapped = _edit_checked_by_a_ready_worker(tmp_path, monkeypatch)
    assert mapped == [1]  # extra.py, in the worker forked before the regions were known
    same(warm, run([tmp_path], tmp_path))
    assert any(f.path == "extra.py" and f.code == "BL101" for f in warm.findings)


def _die(news: object) -> None:
    os._exit(3)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a ready worker is forked")
def test_a_ready_worker_that_dies_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from breaklint.check import worker

    monkeypatch.setattr(worker, "adopt", _die)  # only the worker calls it
    warm, mapped = _edit_checked_by_a_ready_worker(tmp_path, monkeypatch)
    assert mapped == [-1]  # it died: the file was checked by the pool instead
    same(warm, run([tmp_path], tmp_path))


def _check_with_a_head_start(monkeypatch: pytest.MonkeyPatch, jobs: int = 2) -> tuple[CheckResult, list[int]]:
    """A cold check of the rules' testdata with `jobs` (more files than _POOL_FROM, fewer than
    _KEPT_MODULES: engine._head_start forks a worker for each job but one), and how many files
    each head-start worker offered to check from the trees it parsed ahead (-1: it died)."""
    from breaklint.infra.parallel import HeadStart

    monkeypatch.chdir(ROOT)
    offered: list[int] = []
    real_settle = HeadStart.settle

    def counted(self: HeadStart, *args: object) -> object:
        found = real_settle(self, *args)  # type: ignore[arg-type]
        offered.append(-1 if found is None else len(found))
        return found

    monkeypatch.setattr(HeadStart, "settle", counted)
    return run([ROOT / "testdata"], ROOT, jobs=jobs), offered


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a head-start worker is forked")
@pytest.mark.parametrize("jobs", [2, 3])
def test_trees_parsed_ahead_of_the_regions_change_nothing(monkeypatch: pytest.MonkeyPatch, jobs: int) -> None:
    """The head-start worker parses the files the regions will likely name while they are
    computed (likely_regions.py), then checks those whose guess held every region function:
    from a tree of more code than the regions' (tests/test_region_text.py: the rules see only
    the regions), with the same findings. With three jobs, two of them share the files."""
    from breaklint.check import engine

    real = engine._Run.parse_ahead
    # Regions this small are computed before the worker has parsed anything: here it parses
    # all it would, whatever the clock (the check waits for it: HeadStart.settle).
    monkeypatch.setattr(engine._Run, "parse_ahead", lambda run_, stop, part: real(run_, lambda: False, part))
    checked, offered = _check_with_a_head_start(monkeypatch, jobs)
    # Each parses its part (every other file with two of them): all of it, as the check waits.
    assert len(offered) == jobs - 1 and min(offered) > 40 // (jobs - 1), offered
    same(checked, run([ROOT / "testdata"], ROOT))


def _die_ahead(run_: object, stop: object, part: object) -> None:
    os._exit(3)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a head-start worker is forked")
def test_a_head_start_worker_that_dies_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from breaklint.check import engine

    monkeypatch.setattr(engine._Run, "parse_ahead", _die_ahead)  # only the worker calls it
    checked, offered = _check_with_a_head_start(monkeypatch)
    assert offered == [-1]  # it died: the pool checked every file
    same(checked, run([ROOT / "testdata"], ROOT))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
