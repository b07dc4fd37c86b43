"""Torch versions as rules see them: `target-torch` in config, or the installed torch."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from breaklint.infra import dists

# The newest torch whose behaviour the catalog was checked against; the oldest with torch.compile.
NEWEST_KNOWN = "2.13"
OLDEST_KNOWN = "2.0"


@dataclass(frozen=True, order=True)
class TorchVersion:
    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> "TorchVersion":
        match = re.match(r"^\s*([0-9]+)\.([0-9]+)", text)  # ASCII: int() takes "١٢" too
        if match is None:
            raise ValueError(f"not a torch version: {text!r} (expected e.g. '2.13')")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


def installed_torch() -> TorchVersion | None:
    """The installed torch's version, read from its metadata: never imports torch."""
    found = dists.version("torch")
    try:
        return TorchVersion.parse(found) if found is not None else None
    except ValueError:
        return None


def default_target() -> TorchVersion:
    return installed_torch() or TorchVersion.parse(NEWEST_KNOWN)


def target_torch(text: str) -> TorchVersion:
    """A torch version a user asks to be judged for (`target-torch`, `--target-torch`): one the
    catalog knows, from the first with torch.compile to the newest known or the installed one
    (the default target). ValueError for anything else: no rule can judge for torch 99.99."""
    version = TorchVersion.parse(text)
    oldest = TorchVersion.parse(OLDEST_KNOWN)
    newest = max(TorchVersion.parse(NEWEST_KNOWN), installed_torch() or oldest)
    if not oldest <= version <= newest:
        raise ValueError(f"torch {version} is not a version breaklint knows ({oldest} to {newest})")
    return version


@dataclass(frozen=True)
class Versions:
    """An inclusive range of torch versions ("major.minor"; None: open): where one pattern breaks,
    or where Dynamo gives one id for it. Written `<=2.11`, `2.12+`, `2.8-2.12` or `all`."""

    low: str | None = None
    high: str | None = None

    @classmethod
    def parse(cls, text: str) -> "Versions":
        text = text.strip()
        if text == "all":
            return cls()
        if text.startswith("<="):
            return cls(high=str(TorchVersion.parse(text[2:])))
        if text.endswith("+"):
            return cls(low=str(TorchVersion.parse(text[:-1])))
        low, sep, high = text.partition("-")
        if not sep:
            raise ValueError(f"not a torch version range: {text!r} (expected e.g. '<=2.11' or '2.12+')")
        return cls(str(TorchVersion.parse(low)), str(TorchVersion.parse(high)))

    def __contains__(self, version: object) -> bool:
        if not isinstance(version, TorchVersion):
            return False
        return (self.low is None or version >= TorchVersion.parse(self.low)) and (
            self.high is None or version <= TorchVersion.parse(self.high))

    def __str__(self) -> str:
        if self.low and self.high:
            return f"{self.low}-{self.high}"
        if self.low:
            return f"{self.low}+"
        return f"<={self.high}" if self.high else "all"


def pick(table: Mapping[str, Versions], target: TorchVersion) -> tuple[str, ...]:
    """The keys of `table` whose versions hold the target: Dynamo's id(s) for one pattern, by
    torch version (more than one where the boundary is not known)."""
    return tuple(key for key, versions in table.items() if target in versions)
