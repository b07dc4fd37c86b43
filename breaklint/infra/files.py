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
    """`path` relative to `root` when it is below it (pathlib's relative_to, by the paths' text
    where paths are POSIX: Python 3.12's relative_to cost a warm run on timm 25 ms)."""
    if os.sep == "/":
        text, base = str(path), str(root)
        if base == "." and not text.startswith("/"):
            return text
        if text == base:
            return "."
        prefix = base if base.endswith("/") else base + "/"
        if text.startswith(prefix) and base != ".":
            return text[len(prefix):]
        if text.startswith("/") and base.startswith("/"):  # two absolute paths, not one below the other
            return text
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
    for given in paths:  # one stat a path: a run names thousands of files (check_units)
        text = os.path.normpath(given if given.is_absolute() else Path.cwd() / given)
        path = given if text == str(given) else Path(text)
        try:
            mode: int | None = os.stat(text).st_mode
        except (OSError, ValueError):  # missing, a dangling symlink, a NUL in the name
            mode = None
        if mode is not None and stat.S_ISDIR(mode):
            found.update(_walk(path, excluder, problems))
        elif mode is not None or os.path.islink(text):
            if not (force_exclude and excluder.excludes(path)):
                found.add(path)
        else:
            problems.append((path, ReadProblem("BL003", f"no such file or directory: {given}")))
    # Path's own order, by the parts each path keeps (comparing Paths builds them every time).
    return sorted(found, key=_path_order), problems


def _path_order(path: Path) -> tuple[str, ...]:
    return path.parts if os.sep == "/" else tuple(part.lower() for part in path.parts)


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


class Unreadable(Exception):
    """Why a path gives no bytes, in a few words for a person."""


def read_regular(path: Path, limit: int, follow_symlinks: bool = True) -> bytes:
    """A regular file's bytes, at most `limit` of them, else Unreadable. Never reads a FIFO (it
    would block forever) or a device such as /dev/zero (it never ends), whatever its name, nor a
    path swapped for one between the stat() and the open (the open does not block, and what was
    opened is what is judged). `follow_symlinks=False`: a symlink is not a regular file."""
    too_large = Unreadable(f"file is larger than {limit // (1024 * 1024)} MiB")
    try:
        info = path.stat() if follow_symlinks else path.lstat()
        if not stat.S_ISREG(info.st_mode):  # not even opened: opening a device may act
            raise Unreadable(_NOT_REGULAR)
        descriptor = os.open(path, os.O_RDONLY | _OPEN_FLAGS | (0 if follow_symlinks else _NO_FOLLOW))
        with os.fdopen(descriptor, "rb") as handle:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode):
                raise Unreadable(_NOT_REGULAR)
            if info.st_size > limit:
                raise too_large
            # Ask for the size fstat() gave, not for the cap: a buffer of 8 MiB is a memory
            # mapping of its own, and shrunk to the file's size it stays one, for as long as the
            # bytes live (a run keeps them). 65,530 of them and no process can map a library.
            want = info.st_size + 1
            data = handle.read(want)
            if len(data) == want:  # it grew since (or says 0, as in /proc): read on, up to the cap
                data += handle.read(limit + 1 - want)
    except OSError as error:
        raise Unreadable(f"cannot read file: {error.strerror or error}") from None
    if len(data) > limit:
        raise too_large
    return data


_NOT_REGULAR = "not a regular file (a FIFO, device or socket)"
# Never wait on a FIFO, never take a terminal as ours; bytes as they are on Windows.
_OPEN_FLAGS = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)


def read_capped(path: Path) -> bytes | ReadProblem:
    """A source file's bytes (at most MAX_BYTES), or the BL003 that says why not."""
    try:
        return read_regular(path, MAX_BYTES)
    except Unreadable as why:
        return ReadProblem("BL003", f"{why}; skipped")


def read_source(path: Path) -> str | ReadProblem:
    data = read_capped(path)
    return data if isinstance(data, ReadProblem) else decode_source(data)


def decode_source(data: bytes) -> str | ReadProblem:
    """Decode as Python does: a BOM or a PEP 263 coding line, else UTF-8."""
    if b"\0" in data:
        return NUL_BYTES
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        if _declares_encoding(data):
            return ReadProblem("BL002", f"bad encoding declaration: {error}")
        # No declaration: the first lines are simply not UTF-8; say where, as for any other line.
        encoding = "utf-8-sig" if data.startswith(codecs.BOM_UTF8) else "utf-8"
    try:
        codecs.lookup(encoding)
        text = data.decode(encoding)
    except (LookupError, UnicodeDecodeError) as error:
        line, col = _error_position(data, error, encoding)
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


# Python refuses such text ("source code cannot contain null bytes"): from disk or from an editor.
NUL_BYTES = ReadProblem("BL003", "file contains NUL bytes (binary?); skipped")


def _declares_encoding(data: bytes) -> bool:
    """A PEP 263 coding line among the first two."""
    lines = data.removeprefix(codecs.BOM_UTF8).split(b"\n", 2)[:2]
    return any(_CODING.match(line) for line in lines)


_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")  # PEP 263's, as tokenize reads it


def shown_text(data: bytes) -> str:
    """The text an editor shows for bytes that may not decode: what does not decode becomes
    U+FFFD, so a BL002's line and column (in code points) can still be placed on it."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        codecs.lookup(encoding)
    except (SyntaxError, LookupError):
        encoding = "utf-8"
    return data.decode(encoding, errors="replace").removeprefix("\ufeff")


def _error_position(data: bytes, error: Exception, encoding: str) -> tuple[int, int]:
    if not isinstance(error, UnicodeDecodeError):
        return 1, 1
    if codecs.lookup(encoding).name == "utf-8-sig" and data.startswith(codecs.BOM_UTF8):
        data, encoding = data[len(codecs.BOM_UTF8):], "utf-8"  # its offsets count from past the BOM
    before = data[: error.start]
    ends = [m.end() for m in _LINE_END.finditer(before)]  # Python's line ends: CRLF, LF, CR
    # Columns count code points (finding.Span): what precedes the error on its line decodes.
    line_start = before[ends[-1] if ends else 0:]
    return len(ends) + 1, len(line_start.decode(encoding, errors="replace")) + 1
