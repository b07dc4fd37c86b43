"""Which functions the compiled regions will likely hold, guessed from the summaries alone.

With two jobs or more, one worker parses files with libcst while the regions are computed (a
walk that runs on one core: engine.py, `_head_start`), so it needs a guess of each file's
region functions before they are known. A tree parsed from a file's region text for a superset
of its regions gives the same findings as one for the regions alone (the rules visit only the
region functions; tests/test_region_text.py holds the whole tree to the region text), so a
guess is used only where it holds every region function of its file, and a wrong one costs
only the parse. The guess: every function a regions' walk starts from (each `forward` where
forwards are assumed compiled, each compiled function), and what those call by name,
transitively, matched by the last part of the callee's name to any function of that name in
the project (`self.mlp(x)`, `F.gelu(x)`, `helpers.to_2tuple(x)`), and the defs nested in them.
On timm 1.0.29 it holds every region function of all 163 files with a region (930 k characters
of region text against the regions' 757 k).
"""

from __future__ import annotations

from collections.abc import Mapping

from breaklint.index.summary import ModuleSummary

_NOT_FOLLOWED = frozenset({"__init__"})  # what building an instance calls: rarely a region
_STARTS = ("forward", "__call__")


def likely_regions(summaries: Mapping[int, ModuleSummary], forwards: bool,
                   every_function: bool = False) -> dict[int, frozenset[int]]:
    """By file (the keys of `summaries`): the positions among its defs of the functions guessed
    to be regions. `forwards`: a `forward` (or `__call__`) of a class starts a walk;
    `every_function`: `--scope all`, where every function is one."""
    if every_function:
        return {index: frozenset(range(len(summary.functions))) for index, summary in summaries.items()
                if summary.functions}
    by_name: dict[str, list[tuple[int, int]]] = {}
    starts: list[tuple[int, int]] = []
    targets: list[str] = []  # compiled by an expression: the last part of its name
    for index, summary in summaries.items():
        for ordinal, function in enumerate(summary.functions):
            by_name.setdefault(function.name, []).append((index, ordinal))
            if forwards and function.class_index >= 0 and function.parent < 0 and function.name in _STARTS:
                starts.append((index, ordinal))
        for site in summary.compile_sites:
            if site.function >= 0:
                starts.append((index, site.function))
            elif site.target:
                targets.append(site.target.rsplit(".", 1)[-1])
    for name in targets:
        starts.extend(by_name.get(name, ()))
    guessed = set(starts)
    todo = list(guessed)
    while todo:
        index, ordinal = todo.pop()
        function = summaries[index].functions[ordinal]
        reached = [(index, nested) for nested in function.nested]
        for callee in function.calls:
            name = callee.rsplit(".", 1)[-1]
            if name not in _NOT_FOLLOWED:
                reached.extend(by_name.get(name, ()))
        for key in reached:
            if key not in guessed:
                guessed.add(key)
                todo.append(key)
    found: dict[int, set[int]] = {}
    for index, ordinal in guessed:
        found.setdefault(index, set()).add(ordinal)
    return {index: frozenset(ordinals) for index, ordinals in found.items()}
