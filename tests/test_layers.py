"""The architecture holds (docs/architecture.md): imports point down the layers, and no two
modules import each other at import time. Read from the sources with `ast`; nothing imported."""

from __future__ import annotations

import ast
from pathlib import Path

from testdata import ROOT

# Lower layers first; a module may import its own layer's package and any lower layer.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("breaklint.safe_path", "breaklint.infra"),  # process plumbing: files, the pool, safe reads
    ("breaklint", "breaklint.finding", "breaklint.config", "breaklint.versions", "breaklint.example"),  # the model
    ("breaklint.index",),
    ("breaklint.analysis",),
    ("breaklint.rule",),  # what a rule is given: the rule context
    ("breaklint.rules", "breaklint.check.registry"),  # the catalog
    ("breaklint.report",),  # findings and rule docs, never the engine
    ("breaklint.check",),  # the one pipeline
    ("breaklint.lsp", "breaklint.confirm"),
    ("breaklint.cli", "breaklint.__main__"),
)
# Known and named: the registry lists the runtime-only rules that live beside confirm (imported
# lazily, when the catalog is asked for).
ALLOWED = {("breaklint.check.registry", "breaklint.confirm.observed")}
# Rule files that import index, analysis, infra or check modules instead of the rule context
# (breaklint.rule re-exports what rules may use; DESIGN.md §2): none.
RULES_READING_INTERNALS = 0


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] == "rules":
        parts = ["breaklint", "rules", *parts[1:]]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in [*ROOT.glob("breaklint/**/*.py"), *ROOT.glob("rules/*.py")]}


def imported(path: Path, top_level_only: bool) -> set[str]:
    """The breaklint modules a file imports (`from pkg import module` counts as the module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    for node in tree.body if top_level_only else ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        found.update(name for name in names if name in MODULES)
    return found


def layer_of(module: str) -> int:
    """The rank of the longest prefix that holds the module."""
    best = (-1, "")
    for rank, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > len(best[1]):
                best = (rank, prefix)
    assert best[0] >= 0, f"{module} is in no layer"
    return best[0]


def test_imports_point_down() -> None:
    upward = []
    for module, path in MODULES.items():
        rank = layer_of(module)
        for target in imported(path, top_level_only=False):
            if layer_of(target) > rank and (module, target) not in ALLOWED:
                upward.append(f"{module} -> {target}")
    assert not upward, upward


def test_no_import_cycles() -> None:
    graph = {module: imported(path, top_level_only=True) for module, path in MODULES.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    assert not cycles, cycles


def test_rules_reading_internals_do_not_grow() -> None:
    reading = sorted(module for module, path in MODULES.items() if module.startswith("breaklint.rules.")
                     and any(t.startswith(("breaklint.index", "breaklint.analysis", "breaklint.infra", "breaklint.check"))
                             for t in imported(path, top_level_only=False)))
    assert len(reading) <= RULES_READING_INTERNALS, reading


# Where the process-wide settings may change (issue #13: global state confined to the process
# entry points): the collector's pause (infra/collector.py, used by the command line and the
# language server around a check), the worker processes' own start (check/worker.py,
# confirm/worker.py), and the recursion room a deep tree is parsed in (infra/recursion.py,
# raised only while its caller waits).
PROCESS_SETTINGS = {"gc": {"disable", "enable", "set_threshold"}, "sys": {"setrecursionlimit"}}
SETTING_MODULES = {"breaklint.infra.collector", "breaklint.infra.recursion", "breaklint.check.worker",
                   "breaklint.confirm.worker"}


def test_process_settings_change_only_where_named() -> None:
    found = set()
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.attr in PROCESS_SETTINGS.get(node.func.value.id, ())):
                found.add(module)
    assert found <= SETTING_MODULES, sorted(found - SETTING_MODULES)
    assert "breaklint.infra.collector" in found  # the test sees the calls it looks for
