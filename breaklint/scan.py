"""The pre-pass over one file: bytes -> text -> `ast` summary, or the reason it has none.

What comes out (`FileFacts`) depends only on the file's bytes and its module name, so it is
cached by content hash and computed in worker processes. The summary travels pickled
(`summary_blob`) and is only unpickled when a lookup needs the module.
"""

from __future__ import annotations

import bisect
import hashlib
import pickle
import re
from dataclasses import dataclass
from pathlib import Path

from .files import ReadProblem, decode_source, read_capped
from .summary import ModuleSummary

# A suppression comment needs one of these words (suppress.py's patterns are case-insensitive).
_MAYBE_SUPPRESSION = re.compile(r"breaklint:|noqa:\s*bl\d", re.IGNORECASE)


@dataclass(frozen=True)
class FileFacts:
    digest: str  # of the bytes (and the module name): the cache key
    problem: ReadProblem | None  # BL001/BL002/BL003; then there is no summary
    summary_blob: bytes  # a pickled ModuleSummary (b"" with a problem)
    summary_digest: str  # changes exactly when the summary does
    has_functions: bool
    entry_candidate: bool  # holds a compile site or a class with a `forward`
    maybe_suppressed: bool  # has something like a suppression comment: read them
    size: int = 0  # bytes: big files go first to the workers
    # What a cached result that read this module's `functions` / `classes` by name, or its
    # compile sites, depends on (engine.py, `_fingerprint`), without unpickling the summary.
    function_names: frozenset[str] = frozenset()
    class_names: frozenset[str] = frozenset()
    has_sites: bool = False
    # A digest per part of the index ("imports", "assigns", "sites", "disabled", "defined") and
    # per definition ("functions:Net.forward", "classes:Net"): a cached result that read one part
    # of this module stands while that part is unchanged (see part_digests).
    parts: tuple[tuple[str, str], ...] = ()

    def summary(self) -> ModuleSummary:
        return pickle.loads(self.summary_blob)


def content_digest(data: bytes, module_name: str, is_package: bool) -> str:
    h = hashlib.blake2b(data, digest_size=16)
    h.update(f"\0{module_name}\0{is_package}".encode())
    return h.hexdigest()


def read_bytes(path: Path) -> bytes | ReadProblem:
    return read_capped(path)


def scan_text(text: str, digest: str, module_name: str, is_package: bool) -> FileFacts:
    """Facts of decoded text (a file's, or an editor buffer's)."""
    from .prepass import summarize  # the ast walker; imported here so workers import it once

    maybe_suppressed = _MAYBE_SUPPRESSION.search(text) is not None
    try:
        summary = summarize(text, module_name, is_package)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        # libcst decides what a syntax error is (and reads newer syntax than this Python's ast).
        summary_or_problem = _from_libcst(text, module_name, is_package)
        if isinstance(summary_or_problem, ReadProblem):
            return FileFacts(digest, summary_or_problem, b"", "", False, False, maybe_suppressed, len(text))
        summary = summary_or_problem
    blob = pickle.dumps(summary, protocol=pickle.HIGHEST_PROTOCOL)
    entry = bool(summary.compile_sites) or any(
        fn.name == "forward" and fn.class_index >= 0 for fn in summary.functions
    )
    return FileFacts(digest, None, blob, hashlib.blake2b(blob, digest_size=16).hexdigest(),
                     summary.has_functions, entry, maybe_suppressed, len(text),
                     frozenset(f.qualname for f in summary.functions), frozenset(c.qualname for c in summary.classes),
                     bool(summary.compile_sites), part_digests(summary))


def part_digests(summary: ModuleSummary) -> tuple[tuple[str, str], ...]:
    """What each part of a module's index is made of, digested. A definition's digest covers
    every definition nested in it and every one it is nested in (a method's class, a nested
    function's parents): whatever reading it can reach without another recorded read. Index
    fields (a class or parent by position) are digested as they are, so an edit that moves
    definitions changes more digests than it needs to, never fewer."""
    def digest(*parts: object) -> str:
        return hashlib.blake2b(repr(parts).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    own: dict[str, list[str]] = {}  # qualname -> the digests of the definitions of that name
    for kind, items in (("functions", summary.functions), ("classes", summary.classes)):
        for item in items:
            own.setdefault(item.qualname, []).append(digest(kind, item))
    names = sorted(own)
    found = [
        ("imports", digest(summary.module_name, summary.is_package, summary.aliases, summary.local_defs)),
        ("assigns", digest(summary.assigns)),
        ("sites", digest(summary.compile_sites, [summary.functions[s.function].qualname
                                                 for s in summary.compile_sites if s.function >= 0])),
        ("disabled", digest(summary.disabled, [summary.functions[i].qualname for i, _ in summary.disabled])),
        ("defined", digest(*names, *(d for name in names for d in own[name]))),
    ]
    for qualname in names:
        dotted = qualname.split(".")
        related = [".".join(dotted[:i]) for i in range(1, len(dotted))]  # the enclosing definitions
        first = bisect.bisect_left(names, qualname + ".")
        last = bisect.bisect_left(names, qualname + "/")  # "/" sorts right after "."
        related += names[first:last]  # the nested ones
        combined = digest(own[qualname], [own.get(name) for name in related])
        found.append((f"functions:{qualname}", combined))
        found.append((f"classes:{qualname}", combined))
    return tuple(found)


def scan_bytes(data: bytes | ReadProblem, module_name: str, is_package: bool) -> FileFacts:
    if isinstance(data, ReadProblem):
        return FileFacts("", data, b"", "", False, False, False)
    digest = content_digest(data, module_name, is_package)
    text = decode_source(data)
    if isinstance(text, ReadProblem):
        return FileFacts(digest, text, b"", "", False, False, False)
    return scan_text(text, digest, module_name, is_package)


def _from_libcst(text: str, module_name: str, is_package: bool) -> ModuleSummary | ReadProblem:
    from .engine import parse_file  # the one place that turns libcst's errors into BL001
    from .prepass import summary_from_index
    from .project import build_module_index

    parsed = parse_file(Path(module_name), Path("."), text, module=(module_name, is_package))
    if isinstance(parsed, ReadProblem):
        return parsed
    return summary_from_index(build_module_index(parsed))
