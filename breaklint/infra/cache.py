"""The content-hash cache under `.breaklint_cache/`: what a file's bytes told the pre-pass, which
functions of a project are compiled, each checked file's findings, and a whole run's answer when
nothing it depends on has changed.

Four kinds of pack (the facts, the regions, the findings, and a pack per whole run), each one
file written atomically (a temp file, then `os.replace`), each led by a
signature of its body (keyed with a per-user secret outside the tree: see `_secret`) and stamped
with the `salt` (breaklint's version and sources, Python's
and libcst's versions). A pack that is missing, truncated, corrupted, from another version or
unreadable is an empty pack; one that cannot be written is left as it was. So a broken cache
costs a cold run, never a wrong finding. What a cloned tree may plant there is ignored: a pack
is read only when it is a regular file (not a FIFO, which would block forever, nor a link to
/dev/zero) of at most MAX_PACK_BYTES, and a symlink is never followed, neither for a pack nor a
marker file nor the cache folder itself, so nothing is read or written outside it. Every key
holds all that its value depends on (see engine.py), so nothing is ever invalidated: entries
unused for a while are dropped on save.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import shutil
import tempfile
from pathlib import Path
from functools import lru_cache
from typing import Any, Generic, TypeVar

from breaklint.infra.files import Unreadable, read_regular

CACHE_DIR = ".breaklint_cache"
_RUN_PREFIX = "run-"  # a whole run's pack: run-<its key>.pack (RunPacks)
_MAGIC = b"BREAKLINT-CACHE\n"
_CHECKSUM = 16
_KEY_BYTES = 32
_GITIGNORE = "# Created by breaklint: a cache, never commit it.\n*\n"
# A pack holds about a KiB per file of the tree; past this it is not ours (or not worth a run's memory).
MAX_PACK_BYTES = 1024 * 1024 * 1024
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# breaklint's cache (https://bford.info/cachedir/)\n"

V = TypeVar("V")


class Pack(Generic[V]):
    """One file of key -> value, loaded whole on first use, saved whole when it changed."""

    def __init__(self, path: Path, salt: str, keep_unused: int) -> None:
        self.path = path
        self.salt = salt
        self.keep_unused = keep_unused
        self._entries: dict[str, V] | None = None
        self._used: set[str] = set()
        self._dirty = False

    def _load(self) -> dict[str, V]:
        if self._entries is None:
            self._entries = _read_pack(self.path, self.salt)
        return self._entries

    def get(self, key: str) -> V | None:
        found = self._load().get(key)
        if found is not None:
            self._used.add(key)
        return found

    def put(self, key: str, value: V) -> None:
        self._load()[key] = value
        self._used.add(key)
        self._dirty = True

    @property
    def dirty(self) -> bool:
        """Whether `save` has something to write."""
        return self._dirty and self._entries is not None

    def save(self) -> None:
        if not self.dirty:
            return
        # The newest unused entries survive (up to keep_unused); this run's go last (newest).
        unused = [key for key in self._entries if key not in self._used]
        unused = unused[max(0, len(unused) - self.keep_unused):]
        ordered = {key: self._entries[key] for key in unused}
        ordered.update((key, value) for key, value in self._entries.items() if key in self._used)
        _write_pack(self.path, self.salt, ordered)
        self._dirty = False


class RunPacks:
    """Whole runs' answers (engine.py, `_run_key`), one pack each, so that a run reads only its
    own: an answer holds a tree's findings (1.3 MB for the whole of transformers), and one pack of
    the last five cost every run that computes a key 56 ms to read and a run that changed a file
    69 ms to write there. This run's and the `keep_others` newest others are kept."""

    def __init__(self, directory: Path, salt: str, keep_others: int) -> None:
        self.directory = directory
        self.salt = salt
        self.keep_others = keep_others
        self._packs: dict[str, Pack[Any]] = {}

    def _pack(self, key: str) -> Pack[Any]:
        found = self._packs.get(key)
        if found is None:
            found = self._packs[key] = Pack(self.directory / f"{_RUN_PREFIX}{key}.pack", self.salt, keep_unused=0)
        return found

    def get(self, key: str) -> Any | None:
        return self._pack(key).get(key)

    def put(self, key: str, value: Any) -> None:
        self._pack(key).put(key, value)

    def save(self) -> None:
        written = [pack for pack in self._packs.values() if pack.dirty]
        for pack in written:
            pack.save()
        if written:
            self._prune()

    def _prune(self) -> None:
        """The newest run packs stay; older ones go, and any other `run*.pack` (the single pack
        of all runs that came before, `runs.pack`). Only regular files: a link is never followed."""
        try:
            found = [(entry.stat(follow_symlinks=False).st_mtime_ns, entry.name) for entry in os.scandir(self.directory)
                     if entry.name.startswith("run") and entry.name.endswith(".pack")
                     and entry.is_file(follow_symlinks=False)]
        except OSError:
            return
        newest = sorted((item for item in found if item[1].startswith(_RUN_PREFIX)), reverse=True)
        kept = {name for _, name in newest[:self.keep_others + 1]}
        for _, name in found:
            if name not in kept:
                try:
                    os.unlink(self.directory / name)
                except OSError:
                    pass


class Cache:
    def __init__(self, directory: Path, salt: str) -> None:
        """`salt`: what the cached results were computed by (check/salt.py's `code_salt`); a
        pack stamped with another is read as empty."""
        self.directory = directory
        self.facts: Pack[Any] = Pack(directory / "facts.pack", salt, keep_unused=20_000)
        self.regions: Pack[Any] = Pack(directory / "regions.pack", salt, keep_unused=8)
        self.findings: Pack[Any] = Pack(directory / "findings.pack", salt, keep_unused=20_000)
        # A whole run's findings, by everything they depend on (engine.py, _run_key): this run's
        # and the last few others'.
        self.runs = RunPacks(directory, salt, keep_others=4)

    def save(self, settled: bool = False) -> None:
        """Write what changed; a cache that cannot be written is simply not updated. `settled`:
        only what a check can no longer change once its regions are known (the facts and the
        regions), written while the files are still being checked."""
        try:
            _prepare(self.directory)
            for pack in (self.facts, self.regions) if settled else (self.facts, self.regions, self.findings, self.runs):
                pack.save()
        except OSError:
            pass


def clean(directory: Path) -> bool:
    """Remove a cache directory (only one breaklint made). True when something was removed."""
    if not usable(directory) or not (directory / ".gitignore").is_file() or not directory.is_dir():
        return False
    shutil.rmtree(directory, ignore_errors=True)
    return not directory.exists()


def usable(directory: Path) -> bool:
    """The cache folder is a folder of the tree, or not there yet: not a symlink to elsewhere."""
    return not directory.is_symlink() and (directory.is_dir() or not os.path.lexists(directory))


def _prepare(directory: Path) -> None:
    if not usable(directory):
        raise NotADirectoryError(f"{directory} is not a folder of the tree")
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _TAG)):
        try:  # O_EXCL: whatever is there already (a dangling symlink too) is left alone, never followed
            descriptor = os.open(directory / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(text)


@lru_cache(maxsize=1)
def _secret() -> bytes:
    """A per-user key kept outside every checked tree. Packs are signed with it, so a cache that
    arrives with a repository (or is planted in one) fails verification and is never unpickled:
    `check` must not run code from the tree it reads. Without a place for the key, this run's key
    is random and its cache is simply never reused."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "breaklint"
    path = base / "cache-key"
    for _ in range(2):
        try:
            key = read_regular(path, _KEY_BYTES)
            if len(key) == _KEY_BYTES:
                return key
        except Unreadable:
            pass
        key = os.urandom(_KEY_BYTES)
        try:
            base.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as out:
                out.write(key)
            return key
        except FileExistsError:
            continue  # another run wrote it first: read theirs
        except OSError:
            return key
    return os.urandom(_KEY_BYTES)


def _signature(body: bytes | memoryview) -> bytes:
    return hashlib.blake2b(body, digest_size=_CHECKSUM, key=_secret()).digest()


def _read_pack(path: Path, salt: str) -> dict[str, Any]:
    if not usable(path.parent):
        return {}
    try:
        data = read_regular(path, MAX_PACK_BYTES, follow_symlinks=False)
    except Unreadable:
        return {}
    head = len(_MAGIC) + _CHECKSUM
    if len(data) < head or not data.startswith(_MAGIC):
        return {}
    body = memoryview(data)[head:]
    if not hmac.compare_digest(_signature(body), data[len(_MAGIC):head]):
        return {}  # truncated, corrupted, or not written by this user's breaklint
    try:
        stored_salt, entries = pickle.loads(body)
    except Exception:  # a checksum collision on garbage, or a class that moved: start over
        return {}
    if stored_salt != salt or not isinstance(entries, dict):
        return {}
    return entries


def _write_pack(path: Path, salt: str, entries: dict[str, Any]) -> None:
    body = pickle.dumps((salt, entries), protocol=pickle.HIGHEST_PROTOCOL)
    checksum = _signature(body)
    handle, temp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(_MAGIC)
            out.write(checksum)
            out.write(body)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
