"""A project kept warm for the language server: every Python file under a root, indexed once and
indexed again only when its text changes (on disk, or in an editor's unsaved buffer).

A file's compiled regions come from the whole project (`layers.py` is compiled because
`train.py` calls `torch.compile(model)`), but only the files asked about run the rules.
Nothing here imports pygls: it is tested on its own and shared by any editor integration.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from .config import Config, ConfigError, find_pyproject, load_config
from .disk_watch import DiskWatch
from .engine import Engine, parse_file
from .files import DEFAULT_EXCLUDE, ReadProblem, discover, display_path, read_source
from .finding import Finding, Span
from .project import ModuleIndex, module_name_for
from .registry import RuleSet
from .reindex import Added, build_index
from .reparse import Lines, Parse, reparse, summary_lines
from .scan import python_verdict
from .source import ParsedFile

PYPROJECT = "pyproject.toml"


@dataclass(frozen=True)
class _Indexed:
    """A file's index and what it was built from: (mtime_ns, size) on disk, or the buffer's text."""

    source: tuple[int, int] | str
    result: ModuleIndex | ReadProblem
    parse: Parse | None = None  # a buffer's last parse that succeeded: the next edit starts from it
    added: Sequence[Added] = ()  # what each of that parse's statements added to the index (reindex.py)


class Project:
    def __init__(self, root: Path, config: Config) -> None:
        self.root = root
        self.config = config
        self.rules = RuleSet(config)  # raises ConfigError for unknown selectors
        self.engine = Engine(config, self.rules)
        self._files: list[Path] | None = None  # discovered once, again after invalidate()
        self._index: dict[Path, _Indexed] = {}
        # Looked at before each check, for editors that watch no files (disk_watch.py).
        self.disk = DiskWatch(root, config.root, (*(config.exclude or DEFAULT_EXCLUDE), *config.extend_exclude))

    def contains(self, path: Path) -> bool:
        return path == self.root or self.root in path.parents

    def invalidate(self, paths: Iterable[Path] = ()) -> None:
        """Files were created, deleted or changed outside any buffer: list the tree again."""
        self._files = None
        for path in paths:
            self._index.pop(path, None)

    def check(self, targets: Sequence[Path], buffers: Mapping[Path, str] | None = None) -> dict[Path, list[Finding]]:
        """Findings for each target (absolute paths); open buffers replace the files on disk."""
        buffers = buffers or {}
        if self.disk.tree_changed():
            self._files = None  # a file was created, deleted or renamed: list the tree again
        paths = dict.fromkeys([*self._discover(), *(p for p in buffers if self.contains(p)), *targets])
        indexed = {path: self._indexed(path, buffers.get(path)) for path in paths}
        for gone in self._index.keys() - indexed.keys():  # deleted, excluded, or a closed buffer
            del self._index[gone]
        modules = [r for r in indexed.values() if isinstance(r, ModuleIndex)]
        wanted = [indexed[t] for t in targets if isinstance(indexed[t], ModuleIndex)]
        findings: dict[Path, list[Finding]] = {t: [] for t in targets}
        for finding in self.engine.check_indexed(modules, wanted):  # type: ignore[arg-type]
            findings[self.root / finding.path].append(finding)
        for target in targets:
            problem = indexed[target]
            if isinstance(problem, ReadProblem):
                rule = self.rules.meta(problem.code)
                span = Span(problem.line, problem.col, problem.line, problem.col)
                findings[target].append(rule.make_finding(display_path(target, self.root), span, problem.message))
        return findings

    def prepare(self, paths: Iterable[Path]) -> None:
        """Ready the next edit of these buffers, while the editor is idle: where each top-level
        statement starts (reparse.py) costs a pass over the whole tree once after a full parse."""
        for path in paths:
            entry = self._index.get(path)
            if entry is not None and entry.parse is not None:
                entry.parse.starts()

    def _discover(self) -> list[Path]:
        if self._files is None:
            exclude = (*(self.config.exclude or DEFAULT_EXCLUDE), *self.config.extend_exclude)
            self._files, _ = discover([self.root], self.config.root, exclude, force_exclude=False)
        return self._files

    def _indexed(self, path: Path, buffer: str | None) -> ModuleIndex | ReadProblem:
        source: tuple[int, int] | str
        if buffer is not None:
            source = buffer
        else:
            try:
                stat = os.stat(path)
                source = (stat.st_mtime_ns, stat.st_size)
            except OSError:
                source = (-1, -1)  # parse_file reports why it cannot be read
        cached = self._index.get(path)
        if cached is not None and cached.source == source:
            return cached.result
        base = cached.parse if cached is not None and buffer is not None else None
        added = cached.added if cached is not None and buffer is not None else ()
        try:
            result, parse, added = self._build(path, buffer, base, added)
        except BaseException:
            self._index.pop(path, None)  # reindex.py may have re-pointed some of its index: drop it all
            raise
        self._index[path] = _Indexed(source, result, parse if parse is not None else base, added)
        return result

    def _build(self, path: Path, buffer: str | None, base: Parse | None,
               added: Sequence[Added]) -> tuple[ModuleIndex | ReadProblem, Parse | None, Sequence[Added]]:
        """A file's index, and (for a buffer) what the next edit starts from: an edit parses
        again only the statements it touched (reparse.py), else the whole text, and indexes
        again only the statements that are new or whose imports changed (reindex.py)."""
        module = module_name_for(path)
        parse = reparse(base, buffer, module) if base is not None and buffer is not None else None
        if parse is None:
            where = _unencodable(buffer) if buffer is not None else None
            if where is not None:
                return ReadProblem("BL002", "text is not valid Unicode: a lone surrogate", *where), None, added
            parsed = parse_file(path, self.root, buffer, module)
            if isinstance(parsed, ReadProblem):
                return _as_check_reports(parsed, path, buffer), None, added
            parse = Parse(parsed.text, parsed.tree, summary_lines(parsed.text, module))
        parsed = ParsedFile(path, display_path(path, self.root), *module, parse.text, parse.tree)
        result, added = build_index(parsed, added)
        if parse.lines is not None:
            attach_lines(parsed, result, parse.lines)
        return (result, parse, added) if buffer is not None else (result, None, ())


def _as_check_reports(problem: ReadProblem, path: Path, buffer: str | None) -> ReadProblem:
    """`check` asks Python's parser first (scan.python_verdict): where both parsers refuse the
    text, its BL001 carries Python's message and position, and so must the editor's."""
    if problem.code != "BL001":
        return problem
    text = buffer if buffer is not None else read_source(path)
    if not isinstance(text, str):
        return problem
    return python_verdict(text).problem or problem


def attach_lines(parsed: ParsedFile, module: ModuleIndex, lines: Lines) -> None:
    """engine.attach_def_starts, from the lines alone: where each def starts (positions are
    then resolved per function) and each compile site is."""
    if len(lines.defs) == len(module.defined):
        parsed.starts = {fn.node: line for fn, line in zip(module.defined, lines.defs)}
    if len(lines.sites) == len(module.compile_sites):
        module.compile_sites[:] = [site if site.line else replace(site, line=line)
                                   for site, line in zip(module.compile_sites, lines.sites)]


def _unencodable(text: str) -> tuple[int, int] | None:
    """Where a lone surrogate is (1-based line and column): a buffer may hold one (JSON can
    carry `\\ud800`), a file never does, and libcst cannot take it."""
    try:
        text.encode("utf-8")
        return None
    except UnicodeEncodeError as error:
        before = text[: error.start]
        return before.count("\n") + 1, error.start - (before.rfind("\n") + 1) + 1


def load_project(root: Path) -> tuple[Project, str | None]:
    """The project at `root` with its `[tool.breaklint]` settings; on a config error, the
    defaults and the error's text (an editor shows it and keeps linting)."""
    try:
        config = load_config(find_pyproject(root))
        if config.source is None:
            config = replace(config, root=root)  # no settings file: paths are relative to the root
        return Project(root, config), None
    except ConfigError as error:
        return Project(root, Config(root=root)), str(error)
