"""What the language server looks at before each run instead of relying on the editor's file
watchers (Neovim registers none by default, so a changed `pyproject.toml` or a file created on
disk would never be seen): the settings files that decide a project's configuration, and the
directories its files were listed from.

Each is compared by a stat, (mtime_ns, size): a file created, deleted or renamed in a directory
changes that directory's mtime; an edited settings file changes its own. Files edited in place are
already compared this way, one by one, when the workspace indexes them (workspace._Indexed).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from .files import Excluder, display_path

PYPROJECT = "pyproject.toml"
Stamp = tuple[tuple[str, int, int], ...]


def stamp(paths: Iterable[Path]) -> Stamp:
    """(path, mtime_ns, size) of each path; (-1, -1) for one that is not there."""
    found = []
    for path in paths:
        try:
            info = os.stat(path)
            found.append((str(path), info.st_mtime_ns, info.st_size))
        except OSError:
            found.append((str(path), -1, -1))
    return tuple(found)


def settings_files(root: Path) -> list[Path]:
    """Every pyproject.toml that can decide the settings of a project at `root`: its own and each
    parent folder's (config.find_pyproject walks up to the first with a [tool.breaklint] table, so
    one created, edited or deleted anywhere on that way can change the answer)."""
    return [folder / PYPROJECT for folder in (root, *root.parents)]


def listed_directories(root: Path, excluder: Excluder) -> list[Path]:
    """The directories that listing the project walks (files.discover's pruning)."""
    found = []
    for dirpath, dirnames, _ in os.walk(root):  # never follows directory symlinks, like discover
        found.append(Path(dirpath))
        relative = display_path(Path(dirpath), excluder.root)
        relative = "" if relative == "." else relative
        dirnames[:] = sorted(d for d in dirnames if not excluder.excludes_name(relative, d))
    return found


class DiskWatch:
    """One project's view of the disk: the stamps of its settings files and listed directories,
    taken when it was made and (for the directories) when the tree was last listed."""

    def __init__(self, root: Path, config_root: Path, exclude: tuple[str, ...]) -> None:
        """`exclude` patterns are relative to `config_root`, the settings file's folder."""
        self.root = root
        self.excluder = Excluder(exclude, config_root)
        self._settings = stamp(settings_files(root))
        self._directories = listed_directories(root, self.excluder)
        self._listing = stamp(self._directories)

    def settings_changed(self) -> bool:
        """Whether a settings file was created, edited or deleted since this watch was made."""
        return stamp(settings_files(self.root)) != self._settings

    def tree_changed(self) -> bool:
        """Whether a file or folder was created, deleted or renamed since the last call (or since
        this watch was made); the new listing is the one compared next time."""
        if stamp(self._directories) == self._listing:
            return False
        self._directories = listed_directories(self.root, self.excluder)
        self._listing = stamp(self._directories)
        return True
