"""Finding the files to check and reading them into text, or into a reason why not."""

from __future__ import annotations

import codecs
import fnmatch
import io
import os
import re
import stat
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".eggs", "__pycache__", "build", "dist",
    "node_modules", "site-packages", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    ".breaklint_cache", "*.egg-info",
)
SUFFIXES = (".py", ".pyi")
MAX_BYTES = 8 * 1024 * 1024  # a generated 8 MiB module is not source anyone edits
_LINE_END = re.compile(rb"\r\n|\r|\n")
_TEXT_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class ReadProblem:
    """Why a file could not become text: rendered as a BL0xx finding by the engine."""

    code: str  # the meta rule's code
    message: str
    line: int = 1
    col: int = 1
    details: str = ""  # shown with --verbose (an internal error's traceback)


def display_path(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def is_excluded(path: Path, root: Path, patterns: Iterable[str], below: Path | None = None) -> bool:
    """A pattern matches a path component (`build`) or the path relative to the config root
    (`tests/data/*`). Components are only those below `below` (the directory the user named):
    `breaklint check .venv/lib/.../torch` checks torch although `.venv` is excluded."""
    return Excluder(tuple(patterns), root).excludes(path, below)


class Excluder:
    """is_excluded with its patterns compiled once: discovery asks it for every directory and
    file of the tree (fnmatch per pattern and component was most of a warm run's discovery)."""

    def __init__(self, patterns: tuple[str, ...], root: Path) -> None:
        self.root = root
        stripped = [pattern.rstrip("/") for pattern in patterns]
        whole = [f"(?:{fnmatch.translate(p)})|(?:{fnmatch.translate(p + '/*')})" for p in stripped if "/" in p]
        parts = [f"(?:{fnmatch.translate(p)})" for p in stripped if "/" not in p]
        self._whole = re.compile("|".join(whole)) if whole else None
        self._part = re.compile("|".join(parts)) if parts else None

    def excludes(self, path: Path, below: Path | None = None) -> bool:
        relative = display_path(path, self.root)
        if self._whole is not None and self._whole.match(relative):
            return True
        if self._part is None:
            return False
        parts = display_path(path, below).split("/") if below is not None else relative.split("/")
        return any(self._part.match(part) for part in parts)

    def excludes_name(self, directory_relative: str, name: str) -> bool:
        """`excludes(directory / name, below)` for a directory already known not to be excluded
        (its components were checked on the way down): only the name and the whole path are new."""
        if self._part is not None and self._part.match(name):
            return True
        if self._whole is None:
            return False
        relative = f"{directory_relative}/{name}" if directory_relative else name
        return self._whole.match(relative) is not None


def discover(
    paths: Iterable[Path], root: Path, exclude: tuple[str, ...], force_exclude: bool
) -> tuple[list[Path], list[tuple[Path, ReadProblem]]]:
    """Python files under `paths`, sorted and unique. Files named explicitly are always checked
    unless `force_exclude` (the pre-commit case)."""
    found: set[Path] = set()
    problems: list[tuple[Path, ReadProblem]] = []
    excluder = Excluder(exclude, root)
    for given in paths:
        path = given if given.is_absolute() else Path.cwd() / given
        path = Path(os.path.normpath(path))
        if path.is_dir():
            found.update(_walk(path, excluder, problems))
        elif path.exists() or path.is_symlink():
            if not (force_exclude and excluder.excludes(path)):
                found.add(path)
        else:
            problems.append((path, ReadProblem("BL003", f"no such file or directory: {given}")))
    return sorted(found), problems


def _walk(top: Path, excluder: Excluder, problems: list[tuple[Path, ReadProblem]]) -> Iterator[Path]:
    def on_error(error: OSError) -> None:
        problems.append((Path(error.filename or top), ReadProblem("BL003", f"cannot list directory: {error.strerror}")))

    for dirpath, dirnames, filenames in os.walk(top, onerror=on_error):  # never follows dir symlinks
        directory = Path(dirpath)
        relative = display_path(directory, excluder.root)
        if relative == ".":
            relative = ""
        dirnames[:] = sorted(d for d in dirnames if not excluder.excludes_name(relative, d))
        for filename in filenames:
            if filename.endswith(SUFFIXES) and not excluder.excludes_name(relative, filename):
                yield directory / filename


def read_capped(path: Path) -> bytes | ReadProblem:
    """A regular file's bytes, at most MAX_BYTES. Never opens a FIFO (it would block forever) or
    a device such as /dev/zero (it never ends), whatever its name."""
    too_large = ReadProblem("BL003", f"file is larger than {MAX_BYTES // (1024 * 1024)} MiB; skipped")
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            return ReadProblem("BL003", "not a regular file (a FIFO, device or socket); skipped")
        if info.st_size > MAX_BYTES:
            return too_large
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)  # the size may change after stat()
    except OSError as error:
        return ReadProblem("BL003", f"cannot read file: {error.strerror or error}")
    return too_large if len(data) > MAX_BYTES else data


def read_source(path: Path) -> str | ReadProblem:
    data = read_capped(path)
    return data if isinstance(data, ReadProblem) else decode_source(data)


def decode_source(data: bytes) -> str | ReadProblem:
    """Decode as Python does: a BOM or a PEP 263 coding line, else UTF-8."""
    if b"\0" in data:
        return ReadProblem("BL003", "file contains NUL bytes (binary?); skipped")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        return ReadProblem("BL002", f"bad encoding declaration: {error}")
    try:
        codecs.lookup(encoding)
        text = data.decode(encoding)
    except (LookupError, UnicodeDecodeError) as error:
        line, col = _error_position(data, error)
        return ReadProblem("BL002", f"file is not valid {encoding}: {error}", line, col)
    if encoding not in ("utf-8", "utf-8-sig"):  # UTF-8 never decodes to a lone surrogate; others can
        problem = not_unicode(text, f"file decoded as {encoding}")
        if problem is not None:  # e.g. raw_unicode_escape and "\ud800": no parser takes it
            return problem
    return text[1:] if text.startswith("\ufeff") else text


def not_unicode(text: str, what: str) -> ReadProblem | None:
    """BL002 at the first lone surrogate of `text` (an editor's buffer can hold one, JSON carries
    `\\ud800`), or None when it is valid Unicode."""
    try:
        text.encode("utf-8")
        return None
    except UnicodeEncodeError as error:
        before = text[: error.start]
        ends = [m.end() for m in _TEXT_LINE_END.finditer(before)]
        return ReadProblem("BL002", f"{what} is not valid Unicode: {error.reason}",
                           len(ends) + 1, len(before) - (ends[-1] if ends else 0) + 1)


def _error_position(data: bytes, error: Exception) -> tuple[int, int]:
    if isinstance(error, UnicodeDecodeError):
        before = data[: error.start]
        ends = [m.end() for m in _LINE_END.finditer(before)]  # Python's line ends: CRLF, LF, CR
        return len(ends) + 1, len(before) - (ends[-1] if ends else 0) + 1
    return 1, 1
