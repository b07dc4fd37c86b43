"""A project kept warm for the language server, on the one check pipeline.

A file's compiled regions come from the whole project (`layers.py` is compiled because
`train.py` calls `torch.compile(model)`), but only the files asked about run the rules: each
check is `Engine.check([root], overlays=buffers, report=targets)`, the pipeline `breaklint
check` runs. What stays warm between checks is the cache (in memory for the session, read from
and written to `.breaklint_cache/` beside the settings, shared with the command line): an
unchanged file is never indexed twice, and an edit re-runs the rules of the edited file and of
the files whose regions or lookups it changes; an edited buffer's libcst tree is spliced from
its last one where the edit allows (reparse.py). Every check reads the files again, so a change
on disk is seen without file watchers; so is an edit of the settings file (its modification
time is compared on each check, see `load_project`). Nothing here imports pygls.

Before a large workspace is indexed (the session's first check of it, with no cache), indexing
it takes seconds; `check_first` answers sooner from the opened files and what they import
(nearby.py), on the same pipeline, and the server publishes that first, then `check`'s.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from breaklint.check.salt import code_salt
from breaklint.infra.cache import CACHE_DIR, Cache
from breaklint.config import Config, ConfigError, find_pyproject, load_config
from breaklint.check.engine import Engine
from breaklint.finding import Finding
from breaklint.check.registry import RuleSet
from breaklint.infra.files import discover
from breaklint.infra.parallel import available_cores
from breaklint.lsp.nearby import nearby
from breaklint.lsp.reparse import BufferTrees

PYPROJECT = "pyproject.toml"
# A workspace with fewer files is indexed whole before its first diagnostics (the engine's pre-pass
# runs on one core below this many files, in well under a second on the development machine).
NEAR_MIN_FILES = 64


@dataclass(frozen=True)
class First:
    """`check_first`'s findings for each target, from `files` files: the targets and what they
    import, not the whole workspace (whose `check` may differ: it may compile them from elsewhere)."""

    findings: dict[Path, list[Finding]]
    files: int


class _SessionCache(Cache):
    """The cache, kept in memory between checks; written out by `Project.save` only (an edit
    should not rewrite the packs on every keystroke)."""

    def save(self) -> None:
        pass

    def flush(self) -> None:
        super().save()


class _Part:
    """The files of the workspace one settings file governs: its rules, its engine, its cache."""

    def __init__(self, config: Config, shown_from: Path, trees: BufferTrees) -> None:
        self.config = config
        self.rules = RuleSet(config)  # raises ConfigError for unknown selectors
        self.cache = _SessionCache(config.root / CACHE_DIR, code_salt())
        self.engine = Engine(config, self.rules, jobs=available_cores(), cache=self.cache, shown_from=shown_from,
                             parse_buffer=trees.parse)
        self.stamp = _stamp(config.source)
        self.indexed = False  # a check of the whole folder ran (and the cache was written after it)


class Project:
    """A workspace folder. Each file takes the nearest `[tool.breaklint]` above it, as `check`
    does: a sub-project with settings of its own is checked with them, inside its own folder."""

    def __init__(self, root: Path, config: Config, settings: tuple[int, int] | None = None) -> None:
        self.root = root
        self.config = config
        self.settings = settings  # (mtime_ns, size) of the root's settings file when read, None: none
        self.trees = BufferTrees()  # an edit of a buffer parses the statements it touched
        main = _Part(config, root, self.trees)
        self.rules = main.rules
        self._parts: dict[Path | None, _Part] = {config.source: main}

    @property
    def engine(self) -> Engine:
        return self._parts[self.config.source].engine

    def contains(self, path: Path) -> bool:
        return path == self.root or self.root in path.parents

    def invalidate(self, paths: Iterable[Path] = ()) -> None:
        """Files were created, deleted or changed outside any buffer: nothing to drop, as every
        check reads the tree again (kept for the editor's file-watcher notifications)."""

    def check(self, targets: Sequence[Path], buffers: Mapping[Path, str] | None = None) -> dict[Path, list[Finding]]:
        """Findings for each target (absolute paths); open buffers replace the files on disk."""
        buffers = {path: text for path, text in (buffers or {}).items() if self.contains(path)}
        self.trees.forget(set(buffers))
        findings: dict[Path, list[Finding]] = {target: [] for target in targets}
        for source, wanted in self._groups(targets).items():
            part = self._parts[source]
            top = self.root if source == self.config.source else part.config.root
            self._collect(findings, part.engine.check([top, *wanted], overlays=buffers, report=wanted).findings)
            if not part.indexed:  # the first check indexed the folder: the next session starts warm
                part.indexed = True
                part.cache.flush()
        return findings

    def check_first(self, targets: Sequence[Path], buffers: Mapping[Path, str] | None = None) -> First | None:
        """Findings for each target from the targets and the files their imports reach (nearby.py),
        where a part of the workspace has not been indexed in this session, holds NEAR_MIN_FILES
        files or more, and its targets were not in the cache (a cold start: the cache is written
        when the whole workspace has been indexed); None elsewhere, where `check` answers as soon."""
        buffers = {path: text for path, text in (buffers or {}).items() if self.contains(path)}
        near: list[tuple[_Part, list[Path], tuple[Path, ...]]] = []
        for source, wanted in self._groups(targets).items():
            part = self._parts[source]
            if part.indexed:
                return None
            top = self.root if source == self.config.source else part.config.root
            files, _ = discover([top], part.config.root, part.engine.exclude(), False)
            if len(files) < NEAR_MIN_FILES or not part.engine.index(wanted, buffers).scanned:
                return None  # small, or warm: the whole workspace is as quick
            found = nearby(wanted, files, lambda paths, engine=part.engine: engine.index(paths, buffers))
            near.append((part, wanted, found.paths))
        self.trees.forget(set(buffers))
        findings: dict[Path, list[Finding]] = {target: [] for target in targets}
        count = 0
        for part, wanted, paths in near:
            result = part.engine.check(list(paths), overlays=buffers, report=wanted)
            count += result.files_checked
            self._collect(findings, result.findings)
        return First(findings, count)

    def _groups(self, targets: Sequence[Path]) -> dict[Path | None, list[Path]]:
        """The targets by the settings file that governs them."""
        groups: dict[Path | None, list[Path]] = {}
        for target in targets:
            groups.setdefault(self._part_of(target), []).append(target)
        return groups

    def _collect(self, findings: dict[Path, list[Finding]], found: Iterable[Finding]) -> None:
        """Each finding under its target's path (findings print relative to the root)."""
        for finding in found:
            path = Path(os.path.normpath(self.root / finding.path))
            if path in findings:
                findings[path].append(finding)

    def _part_of(self, target: Path) -> Path | None:
        """The settings file that governs `target` (its part made on first use); a sub-project
        whose settings cannot be read is checked with the workspace's."""
        source = find_pyproject(target.parent)
        if source is None or not self.contains(source.parent) or source in self._parts:
            return source if source in self._parts else self.config.source
        try:
            self._parts[source] = _Part(load_config(source), self.root, self.trees)
        except ConfigError:
            return self.config.source
        return source

    def save(self) -> None:
        for part in self._parts.values():
            part.cache.flush()

    def stale(self) -> bool:
        """A settings file changed (or appeared, or went) since this project read it."""
        return _settings_stamp(self.root) != self.settings or any(
            _stamp(source) != part.stamp for source, part in self._parts.items() if source is not None)


def _stamp(path: Path | None) -> tuple[int, int] | None:
    if path is None:
        return None
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def _settings_stamp(root: Path) -> tuple[int, int] | None:
    return _stamp(find_pyproject(root))


def load_project(root: Path) -> tuple[Project, str | None]:
    """The project at `root` with its `[tool.breaklint]` settings; on a config error, the
    defaults and the error's text (an editor shows it and keeps linting)."""
    stamp = _settings_stamp(root)
    try:
        config = load_config(find_pyproject(root))
        if config.source is None:
            config = replace(config, root=root)  # no settings file: paths are relative to the root
        return Project(root, config, stamp), None
    except ConfigError as error:
        return Project(root, Config(root=root), stamp), str(error)
