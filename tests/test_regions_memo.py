"""The region walk keeps answers that depend on the index alone (ProjectIndex.memoized): the
regions, and what their computation read for the cache, are those of a walk that keeps none,
on the examples, the rules' testdata and every testdata project, and on names bound to
themselves (`x = x[0]`), whose answers are cut short by depth. The rules' pass over a file keeps
them too (engine.py), and its findings are those of a pass that keeps none; there, an answer
that read what one call chain passed is not kept for another."""

from __future__ import annotations

import contextlib
import textwrap
from pathlib import Path
from typing import Any, Iterator

import pytest
from testdata import ROOT, project_dirs, write_tree

from breaklint.check import engine as engine_module
from breaklint.check.salt import project_cache
from breaklint.check.engine import Engine
from breaklint.check.registry import RuleSet
from breaklint.config import Config
from breaklint.index.project import ProjectIndex

SELF_BOUND = {
    "pkg/__init__.py": "",
    "pkg/blocks.py": """
        import torch
        from torch import nn

        class Block(nn.Module):
            def forward(self, x):
                return x.sum().item()

        class Other(nn.Module):
            def forward(self, x):
                return x.sum().item()

        class Stage(nn.Module):
            def __init__(self, config, layer=Block):
                super().__init__()
                self.blocks = nn.ModuleList([layer() for _ in range(2)])
                self.extra = Other() if config.extra else Block()

            def forward(self, x):
                blocks = self.blocks
                blocks = blocks[0] if x else blocks
                blocks = blocks[1:]
                for block in blocks:
                    x = block(x)
                    x = x[0]
                    x = x if x else x[1]
                y = x.view(1)
                y = y.flatten()
                return run(self.extra, y)

        def run(layer, y):
            return layer(y)
    """,
    "train.py": """
        import torch
        from pkg.blocks import Stage, Other

        class Config:
            def __init__(self, extra=False):
                self.extra = extra

        model = torch.compile(Stage(Config(), layer=Other))
    """,
}


def _regions(root: Path, cache: Path, monkeypatch: pytest.MonkeyPatch, memo: bool) -> list[Any]:
    if not memo:
        monkeypatch.setattr(ProjectIndex, "memoized", _none)
    computed: list[Any] = []
    original = engine_module._Run.regions_computed

    def keeping(run: engine_module._Run, candidates: set[Path]):  # type: ignore[no-untyped-def]
        found = original(run, candidates)
        computed.append(found)
        return found

    monkeypatch.setattr(engine_module._Run, "regions_computed", keeping)
    config = Config(root=root)
    result = Engine(config, RuleSet(config), jobs=1, cache=project_cache(cache)).check([root])
    monkeypatch.undo()
    return [computed, [(f.code, f.path, f.span.start_line, f.message, f.region) for f in result.findings]]


@contextlib.contextmanager
def _none(self: ProjectIndex, one_walk: bool = True) -> Iterator[None]:
    yield


@pytest.mark.parametrize("where", ["examples", "testdata/rules", *(str(p.relative_to(ROOT)) for p in project_dirs())])
def test_the_walk_finds_what_it_finds_without_keeping(where: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    kept = _regions(ROOT / where, tmp_path / "a", monkeypatch, memo=True)
    monkeypatch.chdir(ROOT)
    assert kept == _regions(ROOT / where, tmp_path / "b", monkeypatch, memo=False)
    assert kept[0] and kept[0][0][0]  # some regions were computed


def test_names_bound_to_themselves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_tree(tmp_path / "p", SELF_BOUND)
    monkeypatch.chdir(root)
    kept = _regions(root, tmp_path / "a", monkeypatch, memo=True)
    monkeypatch.chdir(root)
    assert kept == _regions(root, tmp_path / "b", monkeypatch, memo=False)
    assert sum(1 for code, *_ in kept[1] if code == "BL101") >= 2  # Other's forward, and Block's


def test_a_memo_that_drops_its_answers_finds_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The memo is bounded (_MEMO_SIZE answers, then all dropped): a walk that drops them every
    few answers computes the same regions and reads as one that never drops them, and never
    holds more than the bound."""
    import breaklint.index.project as project_module

    monkeypatch.chdir(ROOT)
    kept = _regions(ROOT / "testdata/rules", tmp_path / "a", monkeypatch, memo=True)
    held: list[int] = []
    stored = project_module._Memo.stored

    def counting(memo: Any) -> None:
        stored(memo)
        held.append(sum(map(len, (memo.lookups, memo.methods, memo.resolved, memo.builds, memo.transient))))

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(project_module, "_MEMO_SIZE", 7)
    monkeypatch.setattr(project_module._Memo, "stored", counting)
    dropping = _regions(ROOT / "testdata/rules", tmp_path / "b", monkeypatch, memo=True)
    assert dropping == kept
    assert held and max(held) <= 7 + 1 and held.count(0) > 10  # bounded, and dropped many times


def test_a_rule_pass_keeps_no_answer_that_read_one_chains_arguments(tmp_path: Path) -> None:
    """rule.py follows each region's call chain with a resolver of its own, which learns what
    the chain passes to parameters (`run(A(), x)`): in a rule pass's memo (one_walk=False) an
    answer that read one resolver's arguments is not another's."""
    from breaklint.analysis.regions import CallResolver
    from breaklint.index.scan import scan_text
    from breaklint.index.view import shallow_module

    source = textwrap.dedent("""
        from torch import nn

        class A(nn.Module):
            def forward(self, x):
                return x

        class B(nn.Module):
            def forward(self, x):
                return x

        def run(layer, x):
            return layer(x)
    """)
    summary = scan_text(source, "", "m", False).summary()
    module = shallow_module(summary, tmp_path / "m.py", "m.py", lambda: module)
    project = ProjectIndex([module])
    run, a, b = module.functions["run"], module.classes["A"], module.classes["B"]
    call = run.calls[0]
    with project.memoized(one_walk=False):
        first = CallResolver(project, {(run, "layer"): [a]}).call_targets(call.func, run)
        second = CallResolver(project, {(run, "layer"): [b]}).call_targets(call.func, run)
    assert first == [a.methods["forward"]] and second == [b.methods["forward"]]
