"""likely_regions.py: the guess of the regions that a head-start worker parses ahead of them
(engine._head_start). A guess that misses a region function costs a parse, never a finding
(tests/test_speed_equivalence.py); these hold what it follows and what it leaves."""

from __future__ import annotations

import textwrap

from breaklint.check.likely_regions import likely_regions
from breaklint.index.scan import scan_text
from breaklint.index.summary import ModuleSummary

MODEL = """
    import torch
    from torch import nn
    from util import act

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.setup()

        def setup(self):
            pass

        def forward(self, x):
            def inner(y):
                return y
            return self.head(inner(x))

        def head(self, x):
            return act(x)

        def unused(self, x):
            return x

    @torch.compile
    def step(x):
        return x

    def compiled_later(x):
        return x

    fast = torch.compile(compiled_later)
"""
UTIL = """
    def act(x):
        return x

    def other(x):
        return x
"""


def _summaries() -> dict[int, ModuleSummary]:
    found = {}
    for index, (name, text) in enumerate((("model", MODEL), ("util", UTIL))):
        facts = scan_text(textwrap.dedent(text), f"digest-{name}", name, False)
        assert facts.problem is None
        found[index] = facts.summary()
    return found


def _names(summaries: dict[int, ModuleSummary], guessed: dict[int, frozenset[int]]) -> set[str]:
    return {f"{summaries[index].module_name}.{summaries[index].functions[o].qualname}"
            for index, ordinals in guessed.items() for o in ordinals}


def test_the_guess_follows_calls_by_name_from_where_walks_start() -> None:
    summaries = _summaries()
    assert _names(summaries, likely_regions(summaries, forwards=True)) == {
        "model.Net.forward", "model.Net.forward.<locals>.inner", "model.Net.head", "util.act",
        "model.step", "model.compiled_later"}


def test_without_assumed_forwards_only_compiled_functions_start() -> None:
    summaries = _summaries()
    assert _names(summaries, likely_regions(summaries, forwards=False)) == {"model.step", "model.compiled_later"}


def test_under_scope_all_every_function_is_guessed() -> None:
    summaries = _summaries()
    guessed = likely_regions(summaries, forwards=True, every_function=True)
    assert guessed == {index: frozenset(range(len(s.functions))) for index, s in summaries.items()}
