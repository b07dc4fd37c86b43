"""A file's project index built statement by statement, reusing what each unchanged top-level
statement contributed last time.

`project.build_module_index` walks the whole tree. What one top-level statement adds to the
index (its defs, classes, compile sites, disabled functions, module-level bindings, top-level
names and imports) depends only on its own nodes and on the import table as the walk reaches it
(the imports of the whole file, then those seen so far, and the top-level names defined so far).
So each statement is indexed alone, with the walk's one import table, and what it added is kept
with the table it started from; after an edit, a statement whose nodes are the same objects
(reparse.py keeps the untouched ones) and whose starting table is equal is not walked again: its
additions are replayed, renumbered and re-pointed at the new index. The result is what
`build_module_index` gives (tests/test_lsp_reparse.py compares them).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import libcst as cst

from .names import ImportTable
from .project import Assigned, ClassInfo, CompileSite, FunctionInfo, ModuleIndex, _Indexer
from .source import ParsedFile
from .walk import visit


@dataclass
class Added:
    """What one top-level statement added to its module's index, and from which table."""

    statement: cst.BaseStatement
    aliases_before: dict[str, str]
    local_defs_before: frozenset[str]
    defined: list[FunctionInfo]
    classes: list[ClassInfo]
    sites: list[CompileSite]
    disabled: list[tuple[FunctionInfo, bool]]
    assigns: list[tuple[str, list[Assigned]]]
    aliases: dict[str, str]  # what it bound in the import table (the ones that changed)
    local_defs: frozenset[str]


def build_index(parsed: ParsedFile, previous: Sequence[Added] = ()) -> tuple[ModuleIndex, list[Added]]:
    """The module's index (as `build_module_index`), and what each statement added."""
    imports = ImportTable(parsed.module_name, parsed.is_package)
    index = ModuleIndex(parsed, imports)
    for statement in parsed.tree.body:  # imports first, as build_module_index does
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    imports.add_import(small)
    known = {id(added.statement): added for added in previous}
    additions = []
    for statement in parsed.tree.body:
        added = known.get(id(statement))
        if (added is None or added.statement is not statement or added.aliases_before != imports.aliases
                or added.local_defs_before != imports.local_defs):
            added = _walk(statement, parsed, imports)
        _merge(index, added)
        additions.append(added)
    return index, additions


def _walk(statement: cst.BaseStatement, parsed: ParsedFile, imports: ImportTable) -> Added:
    aliases_before, local_defs_before = dict(imports.aliases), frozenset(imports.local_defs)
    alone = ModuleIndex(parsed, imports)  # the same table: the walk reads and extends it
    visit(statement, _Indexer(alone), trivia=False)
    changed = {k: v for k, v in imports.aliases.items() if aliases_before.get(k, _MISSING) != v}
    return Added(statement, aliases_before, local_defs_before, alone.defined, alone.defined_classes,
                 alone.compile_sites, list(alone.disabled.items()), list(alone.assigns.items()), changed,
                 frozenset(imports.local_defs - local_defs_before))


def _merge(index: ModuleIndex, added: Added) -> None:
    """Add one statement's additions to `index`, in the order the whole walk makes them."""
    for info in added.classes:
        info.module, info.ordinal = index, len(index.defined_classes)
        index.defined_classes.append(info)
        index.classes[info.qualname] = info
    for fn in added.defined:
        fn.module, fn.ordinal = index, len(index.defined)
        index.defined.append(fn)
        index.functions[fn.qualname] = fn
    added.sites[:] = [replace(site, module=index) for site in added.sites]
    index.compile_sites.extend(added.sites)
    index.disabled.update(added.disabled)
    for name, values in added.assigns:
        index.assigns.setdefault(name, []).extend(values)
    index.imports.aliases.update(added.aliases)
    index.imports.local_defs.update(added.local_defs)


_MISSING = object()
