"""The files an opened file's first diagnostics are computed from, before the workspace is indexed.

A cold workspace takes seconds to index (every file's pre-pass, then the regions across it); the
opened file's diagnostics mostly depend on much less: the file, and what it imports. So the
server checks first on these files (`Engine.check` on them: the same pipeline, on a smaller
project), publishes, and then checks on the whole workspace, whose diagnostics are `check`'s.

Nearest first: the opened files, then the modules their imports name, then what those import,
and so on, until NEAR_BYTES of source. A name imported from a package (`from timm.layers import
DropPath`) is followed through the package's re-exports to the module that defines it; the
package is kept (a lookup passes through it) but its other imports are not followed, else every
`__init__.py` would bring in its whole package. Every file is read through `Engine.index`, so
what was read here is in the cache when the whole workspace is indexed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from breaklint.check.engine import Indexed
from breaklint.index.project import ModuleNames
from breaklint.index.scan import FileFacts

# Source read before the first diagnostics, at most (a file is taken whole, so a little more):
# about 0.7 s of pre-pass on one core of the development machine, where timm's 4.4 MB take 3 s
# (resnet.py's imports reach 768 kB: docs/speed.md, "In the editor").
NEAR_BYTES = 1_000_000


@dataclass(frozen=True)
class Near:
    """The files to check first (the targets first), and how many of them the pre-pass ran on
    (0: all were in the cache)."""

    paths: tuple[Path, ...]
    scanned: int


def nearby(targets: Sequence[Path], files: Iterable[Path], index: Callable[[list[Path]], Indexed],
           budget: int = NEAR_BYTES) -> Near:
    """`targets` and the workspace files (`files`) their imports reach, nearest first, up to
    `budget` bytes; `index`: the engine's pre-pass of some files (`Engine.index`)."""
    reader = _Reader(index, [*targets, *files])
    chosen: dict[Path, None] = dict.fromkeys(targets)
    reader.read(list(targets))
    size = sum(reader.size(path) for path in targets)
    level, expanded = list(targets), set(targets)
    while level and size < budget:
        following: list[Path] = []
        for path in level:
            for name in reader.aliases(path).values():
                for found, defines in reader.resolve(name):
                    if found not in chosen:
                        chosen[found] = None
                        size += reader.size(found)
                    if defines and found not in expanded:
                        expanded.add(found)
                        following.append(found)
                if size >= budget:
                    break
            if size >= budget:
                break
        level = following
    return Near(tuple(chosen), reader.scanned)


class _Reader:
    """The workspace's modules by name, each file's facts read (once) when first needed."""

    def __init__(self, index: Callable[[list[Path]], Indexed], files: Iterable[Path]) -> None:
        self._index = index
        names = ModuleNames()
        self.by_module: dict[str, list[Path]] = {}
        for path in dict.fromkeys(files):
            self.by_module.setdefault(names(path)[0], []).append(path)
        self._facts: dict[Path, FileFacts] = {}
        self._aliases: dict[Path, dict[str, str]] = {}
        self.scanned = 0

    def read(self, paths: list[Path]) -> None:
        todo = [path for path in paths if path not in self._facts]
        if todo:
            found = self._index(todo)
            self.scanned += found.scanned
            self._facts.update((path, facts) for path, _, facts in found.files)

    def size(self, path: Path) -> int:
        self.read([path])
        return self._facts[path].size

    def aliases(self, path: Path) -> dict[str, str]:
        """The file's import table: local name -> qualified name (none for a file with a problem)."""
        found = self._aliases.get(path)
        if found is None:
            self.read([path])
            facts = self._facts[path]
            found = self._aliases[path] = {} if facts.problem is not None else dict(facts.summary().aliases)
        return found

    def resolve(self, name: str) -> Iterator[tuple[Path, bool]]:
        """The workspace files a qualified name leads to, and whether each defines it (False: a
        package that re-exports it, followed on to where it comes from)."""
        seen: set[str] = set()
        todo = [name]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            parts = name.split(".")
            for cut in range(len(parts), 0, -1):  # the longest prefix that is a module here
                paths = self.by_module.get(".".join(parts[:cut]))
                if paths is None:
                    continue
                rest = parts[cut:]
                self.read(paths)
                for path in paths:
                    exported = self.aliases(path).get(rest[0]) if rest else None
                    if exported is not None:
                        todo.append(".".join([exported, *rest[1:]]))
                    yield path, exported is None
                break
