"""Torch versions as rules see them: `target-torch` in config, or the installed torch."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import metadata

# The newest torch whose behaviour the catalog was checked against.
NEWEST_KNOWN = "2.13"


@dataclass(frozen=True, order=True)
class TorchVersion:
    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> "TorchVersion":
        match = re.match(r"^\s*(\d+)\.(\d+)", text)
        if match is None:
            raise ValueError(f"not a torch version: {text!r} (expected e.g. '2.13')")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


def installed_torch() -> TorchVersion | None:
    """The installed torch's version, read from its metadata: never imports torch."""
    try:
        return TorchVersion.parse(metadata.version("torch"))
    except (metadata.PackageNotFoundError, ValueError):
        return None


def default_target() -> TorchVersion:
    return installed_torch() or TorchVersion.parse(NEWEST_KNOWN)
