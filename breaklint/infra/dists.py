"""Installed distributions' versions and metadata headers, read from their `.dist-info` folders.

`importlib.metadata` costs a warm run 25 ms (its import pulls in the email package, and each
lookup scans every path), a tenth of a warm check with nothing changed. A wheel's
`<name>-<version>.dist-info` folder on `sys.path` names both; its `METADATA` starts with plain
`Key: value` headers. Where no such folder is found (an egg, a zip), `importlib.metadata` answers.
Nothing here imports or runs the distribution.
"""

from __future__ import annotations

import os
import re
import sys
from functools import lru_cache
from pathlib import Path

_SUFFIX = ".dist-info"


def _normalized(name: str) -> str:
    """PEP 503's name, with the underscores a dist-info folder's name uses (PEP 427)."""
    return re.sub(r"[-_.]+", "_", name).lower()


@lru_cache(maxsize=None)  # sys.path and what is installed do not change under a run
def _found(name: str) -> tuple[Path, str] | None:
    """The first `.dist-info` folder of `name` on sys.path, in its order, and its version."""
    wanted = _normalized(name)
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as listing:
                folders = [item.name for item in listing if item.name.endswith(_SUFFIX)]
        except OSError:  # not a folder (a zip), gone, unreadable
            continue
        for folder in sorted(folders):
            dist, dash, version = folder[: -len(_SUFFIX)].partition("-")
            if dash and _normalized(dist) == wanted:
                return Path(entry or ".", folder), version
    return None


def version(name: str) -> str | None:
    """The installed version of distribution `name`, or None."""
    found = _found(name)
    if found is not None:
        return found[1]
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def headers(name: str, key: str) -> list[str] | None:
    """Every value of header `key` in `name`'s metadata (e.g. "Project-URL"), or None when it
    is not installed."""
    found = _found(name)
    if found is None:
        from importlib import metadata

        try:
            return metadata.metadata(name).get_all(key) or []
        except metadata.PackageNotFoundError:
            return None
    try:
        text = (found[0] / "METADATA").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    wanted, values = key.lower(), []
    for line in text.splitlines():
        if not line:
            break  # the headers end at the first blank line; the description follows
        label, colon, value = line.partition(":")
        if colon and not line[0].isspace() and label.strip().lower() == wanted:
            values.append(value.strip())
    return values
