"""What the cache's results were computed by, and the cache of a project stamped with it.

The cache itself (infra/cache.py) stores what it is given under a salt; what that salt must
cover is the engine's knowledge: every source that decides a finding, and the versions."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from breaklint import __version__
from breaklint.infra import dists
from breaklint.infra.cache import Cache


def code_salt() -> str:
    """What cached results were computed by: the versions, and breaklint's own sources (an
    edited rule must not be answered from the cache). libcst's version comes from its metadata,
    not from the module: a warm run does not import libcst (deferred.py)."""
    from breaklint.index.summary import SUMMARY_FORMAT

    h = hashlib.blake2b(digest_size=16)
    h.update(f"{__version__}|{SUMMARY_FORMAT}|{sys.version}".encode())
    libcst_version = dists.version("libcst")
    if libcst_version is None:  # libcst without metadata: its sources below the salt are not ours to hash
        import libcst

        libcst_version = str(getattr(libcst, "LIBCST_VERSION", ""))
    h.update(libcst_version.encode())
    import breaklint.rules

    # The whole package (rule.py and analysis/ decide findings too), and the rules.
    roots = [Path(__file__).parents[1], *(Path(p) for p in breaklint.rules.__path__)]
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            try:
                stat = path.stat()
            except OSError:
                continue
            h.update(f"{path.relative_to(root)}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    return h.hexdigest()


def project_cache(directory: Path) -> Cache:
    """The cache at `directory`, stamped with this code's salt."""
    return Cache(directory, code_salt())
