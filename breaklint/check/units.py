"""What one `breaklint check PATHS` runs: the checked files grouped by the settings that govern
them, each group checked inside its own project.

- Per-file settings, ruff's hierarchical model: each file takes the nearest `pyproject.toml`
  with a `[tool.breaklint]` table above it (`--config` gives one file's settings to all).
  Compiled regions are computed within one group: two sub-projects checked in one run are two
  projects.
- Named files (the pre-commit hook stages a few): the project around them — the folder of
  their settings file, else their git work tree — is indexed (cached, so cheap), regions are
  computed across it, and findings are reported for the named files only. A helper whose
  compiling caller is not staged is still seen as compiled.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from breaklint.check.salt import project_cache
from breaklint.infra.cache import CACHE_DIR
from breaklint.config import Config, load_config, settings_in
from breaklint.check.engine import CheckResult, Engine
from breaklint.infra.files import DEFAULT_EXCLUDE, Excluder, discover
from breaklint.finding import Finding
from breaklint.check.registry import RuleSet

Overrides = Callable[[Config], Config]


@dataclass(frozen=True)
class CheckUnit:
    """One engine run: `paths` are indexed; `report` (None: all of them) are reported."""

    config: Config
    paths: tuple[Path, ...]
    report: tuple[Path, ...] | None = None


def plan(paths: Sequence[Path], overrides: Overrides, config_path: Path | None = None) -> list[CheckUnit]:
    """The units for `paths` (absolute or relative to the working directory). Raises
    ConfigError for a settings file that cannot be read."""
    settings = _Settings(overrides, config_path)
    given = [Path(os.path.normpath(p if p.is_absolute() else Path.cwd() / p)) for p in paths or [Path(".")]]
    walked: dict[int, list[Path]] = {}  # by id(config): a Config holds a dict, it does not hash
    named: dict[tuple[int, Path | None], list[Path]] = {}  # by (id(config), the project around them)
    roots: dict[Path, Path | None] = {}  # the project around each folder of a named file (project_root)
    for path in given:
        if path.is_dir():
            config = settings.of(path)
            files, problems = discover([path], config.root, _exclude(config), False)
            for file in files:
                own = settings.of(file, is_dir=False)
                if own is config or not settings.excluder(own).excludes(file):
                    walked.setdefault(id(own), []).append(file)
            for problem_path, _ in problems:  # the engine reports them (BL003)
                walked.setdefault(id(config), []).append(problem_path)
        else:  # a file, or a path that does not exist (the engine says so)
            config = settings.of(path)
            named.setdefault((id(config), project_root(path, config, roots)), []).append(path)
    for (key, root), files in list(named.items()):
        if root is None and key in walked:
            # No project around them, but a folder named beside them with the same settings:
            # one project (`check train.py models/`, where train.py compiles what models/ defines).
            walked[key].extend(files)
            del named[(key, root)]
    units = [CheckUnit(settings.known[key], tuple(files)) for key, files in walked.items()]
    for (key, root), files in named.items():
        config = settings.known[key]
        if root is None:
            units.append(CheckUnit(config, tuple(files)))
        else:
            units.append(CheckUnit(config, (root, *files), tuple(files)))
    return units


def _exclude(config: Config) -> tuple[str, ...]:
    return (*(config.exclude or DEFAULT_EXCLUDE), *config.extend_exclude)


def check_units(units: Sequence[CheckUnit], jobs: int, use_cache: bool, force_exclude: bool = False,
                overlays: Mapping[Path, str] | None = None) -> CheckResult:
    """Every unit through the one pipeline (each with its rules and its cache), as one result;
    `overlays` (path -> text) stand in for files (stdin's text). Raises ConfigError for settings
    the rule registry rejects (an unknown selector)."""
    engines = [Engine(unit.config, RuleSet(unit.config), jobs=jobs,
                      cache=project_cache(unit.config.root / CACHE_DIR) if use_cache else None) for unit in units]
    findings: list[Finding] = []
    files = 0
    started = time.perf_counter()
    for unit, engine in zip(units, engines):
        result = engine.check(list(unit.paths), force_exclude=force_exclude, overlays=overlays, report=unit.report)
        findings.extend(result.findings)
        files += len(unit.report) if unit.report is not None else result.files_checked
    findings.sort(key=lambda f: f.sort_key)
    return CheckResult(findings, files, time.perf_counter() - started)


def project_root(path: Path, config: Config, known: dict[Path, Path | None] | None = None) -> Path | None:
    """The project a named file belongs to: its settings' folder, else the nearest folder above
    it with a pyproject.toml or a .git, else none (only the named files are indexed). `known`:
    the answers for folders already walked (the pre-commit hook may name every file of a tree:
    2,285 files of torch's took 0.33 s of stat calls without it)."""
    if config.source is not None:
        return config.root
    known = {} if known is None else known
    walked: list[Path] = []
    found: Path | None = None
    directory = path.parent
    while True:  # up to the first folder known or holding a project (not every parent made first)
        if directory in known:
            found = known[directory]
            break
        walked.append(directory)
        if (directory / "pyproject.toml").is_file() or (directory / ".git").exists():
            found = directory
            break
        if directory.parent == directory:
            break
        directory = directory.parent
    for directory in walked:  # each folder walked through has the same nearest project
        known[directory] = found
    return found


class _Settings:
    """Each path's Config, each settings file read once."""

    def __init__(self, overrides: Overrides, config_path: Path | None) -> None:
        self.overrides = overrides
        self.forced = overrides(load_config(config_path, explicit=True)) if config_path is not None else None
        self.known: dict[int, Config] = {}
        self.by_file: dict[Path | None, Config] = {}
        self.by_directory: dict[Path, Config] = {}
        self.nearest: dict[Path, Path | None] = {}  # a folder -> its nearest settings file (_nearest)
        self.excluders: dict[int, Excluder] = {}
        if self.forced is not None:
            self.known[id(self.forced)] = self.forced

    def of(self, path: Path, is_dir: bool | None = None) -> Config:
        """`is_dir`: what `path` is, when the caller knows (a discovered file: no stat)."""
        if self.forced is not None:
            return self.forced
        directory = path if (path.is_dir() if is_dir is None else is_dir) else path.parent
        found = self.by_directory.get(directory)
        if found is None:
            source = self._nearest(directory)
            found = self.by_file.get(source)
            if found is None:
                found = self.by_file[source] = self.overrides(load_config(source))
                self.known[id(found)] = found
            self.by_directory[directory] = found
        return found

    def _nearest(self, directory: Path) -> Path | None:
        """config.find_pyproject, each folder looked at once: the tree's hundreds of folders
        share their parents (the whole of transformers: 538 folders, each walked up to the
        root, 4 thousand stat calls)."""
        walked: list[Path] = []
        found: Path | None = None
        while True:  # up to a folder known, or one with settings, or the root (as project_root)
            if directory in self.nearest:
                found = self.nearest[directory]
                break
            walked.append(directory)
            found = settings_in(directory)
            if found is not None or directory.parent == directory:
                break
            directory = directory.parent
        for folder in walked:  # each folder walked through has the same nearest settings
            self.nearest[folder] = found
        return found

    def excluder(self, config: Config) -> Excluder:
        found = self.excluders.get(id(config))
        if found is None:
            found = self.excluders[id(config)] = Excluder(_exclude(config), config.root)
        return found
