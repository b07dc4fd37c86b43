"""`[tool.breaklint]` in pyproject.toml -> a frozen, validated Config."""

from __future__ import annotations

import json
import re
import reprlib
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from breaklint.infra.files import DEFAULT_EXCLUDE, Unreadable, read_regular
from breaklint.versions import TorchVersion, default_target, target_torch

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib


class ConfigError(Exception):
    """A config problem: one clear line naming the file and the key."""


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ("BL",)
    extend_select: tuple[str, ...] = ()  # added to `select` (which a command line may replace)
    ignore: tuple[str, ...] = ()
    per_file_ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    assume_forward_compiled: bool = True
    entry_points: tuple[str, ...] = ()
    target_torch: TorchVersion = field(default_factory=default_target)
    # The Python the checked code runs on (Dynamo reads its bytecode): `target-python`, else
    # breaklint's own.
    target_python: tuple[int, int] = field(default_factory=lambda: (sys.version_info.major, sys.version_info.minor))
    scope: str = "compiled"
    root: Path = field(default_factory=Path.cwd)  # per-file-ignores and excludes are relative to it
    source: Path | None = None  # the file the settings came from

    def with_overrides(self, **changes: Any) -> "Config":
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def _shown(value: object) -> str:
    """A value from the file for an error line, abridged: a deep or long array is not printed whole."""
    return reprlib.repr(value)


def _str_list(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of strings, got {_shown(value)}")
    return tuple(value)


def _bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: expected true or false, got {_shown(value)}")
    return value


# The Pythons torch.compile has run on: 3.8 (torch 2.0) up to 3.14 (torch 2.13 raises
# "torch.compile is not supported on Python 3.15+", torch/__init__.py).
PYTHONS = ((3, 8), (3, 14))


def python_version(text: str) -> tuple[int, int]:
    """`"3.12"` -> (3, 12); ValueError for anything else, or for a Python torch.compile never ran on."""
    match = re.fullmatch(r"\s*3\.([0-9]+)\s*", text)  # ASCII digits: int() would take "١٢" too
    if match is None:
        raise ValueError(f"not a Python version: {text!r} (expected e.g. '3.12')")
    version = 3, int(match.group(1))
    low, high = PYTHONS
    if not low <= version <= high:
        raise ValueError(f"Python {version[0]}.{version[1]} is not one torch.compile runs on "
                         f"({low[0]}.{low[1]} to {high[0]}.{high[1]})")
    return version


def _python(value: object, where: str) -> tuple[int, int]:
    if not isinstance(value, str):
        raise ConfigError(f"{where}: expected a version string such as \"3.12\", got {_shown(value)}")
    try:
        return python_version(value)
    except ValueError as error:
        raise ConfigError(f"{where}: {error}") from None


def _version(value: object, where: str) -> TorchVersion:
    if not isinstance(value, str):
        raise ConfigError(f"{where}: expected a version string such as \"2.13\", got {_shown(value)}")
    try:
        return target_torch(value)
    except ValueError as error:
        raise ConfigError(f"{where}: {error}") from None


def _scope(value: object, where: str) -> str:
    if value not in ("compiled", "all"):
        raise ConfigError(f"{where}: expected \"compiled\" or \"all\", got {_shown(value)}")
    return str(value)


def _glob_problem(pattern: str) -> str | None:
    """Why `pattern` can never match a path relative to the config's folder (None: it can)."""
    if not pattern.strip():
        return "an empty pattern matches nothing"
    if pattern.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:[\\/]", pattern):
        return "patterns are relative to the folder of the config file; an absolute path matches nothing"
    if ".." in re.split(r"[\\/]", pattern):
        return "`..` never matches: patterns are relative to the folder of the config file"
    at = pattern.find("[")
    while at != -1:  # fnmatch's sets: `[seq]`, `[!seq]`, where a `]` right after the opening is literal
        end = at + 1 + (pattern[at + 1:at + 2] == "!")
        end += pattern[end:end + 1] == "]"
        close = pattern.find("]", end)
        if close == -1:
            return "unclosed `[` (write `[[]` for a literal bracket)"
        at = pattern.find("[", close + 1)
    return None


def _globs(value: object, where: str) -> tuple[str, ...]:
    patterns = _str_list(value, where)
    for pattern in patterns:
        problem = _glob_problem(pattern)
        if problem is not None:
            raise ConfigError(f"{where}: bad glob {pattern!r}: {problem}")
    return patterns


def _per_file(value: object, where: str) -> Mapping[str, tuple[str, ...]]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a table of glob = [codes], got {_shown(value)}")
    for glob in value:
        problem = _glob_problem(str(glob))
        if problem is not None:
            raise ConfigError(f"{where}: bad glob {glob!r}: {problem}")
    return {str(glob): _str_list(codes, f"{where}.{glob!r}") for glob, codes in value.items()}


_QUALNAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def _entry_points(value: object, where: str) -> tuple[str, ...]:
    """`module:qualname` or `path/to/file.py:qualname`; anything else would silently match nothing."""
    entries = _str_list(value, where)
    for entry in entries:
        target, colon, qualname = entry.partition(":")
        module_ok = _QUALNAME.match(target) is not None or (
            target.endswith((".py", ".pyi")) and _glob_problem(target) is None)
        if not (colon and module_ok and _QUALNAME.match(qualname)):
            raise ConfigError(f"{where}: {entry!r} is not MODULE:QUALNAME or PATH.py:QUALNAME "
                              "(e.g. \"pkg.train:train_step\" or \"tools/bench.py:Model.forward\")")
    return entries


_KEYS: dict[str, tuple[str, Callable[[object, str], object]]] = {
    "select": ("select", _str_list),
    "extend-select": ("extend_select", _str_list),
    "ignore": ("ignore", _str_list),
    "per-file-ignores": ("per_file_ignores", _per_file),
    "exclude": ("exclude", _globs),
    "extend-exclude": ("extend_exclude", _globs),
    "assume-forward-compiled": ("assume_forward_compiled", _bool),
    "entry-points": ("entry_points", _entry_points),
    "target-torch": ("target_torch", _version),
    "target-python": ("target_python", _python),
    "scope": ("scope", _scope),
}


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)) and not (len(value) == 2 and all(isinstance(v, int) for v in value)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, tuple):  # target-python, (3, 12)
        return _toml_value(".".join(map(str, value)))
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{_toml_value(str(k))} = {_toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(str(value))  # a TOML basic string is a JSON string for what these hold


def settings_toml(config: Config) -> str:
    """Every setting of `config`, in effect, as the `[tool.breaklint]` table that would give it
    (`--show-settings`): the file it came from, then one `key = value` a setting."""
    origin = str(config.source) if config.source is not None else "no settings file: the defaults"
    lines = [f"# {origin}", "[tool.breaklint]"]
    effective = replace(config, exclude=config.exclude or DEFAULT_EXCLUDE)  # an empty `exclude` means these
    lines += [f"{key} = {_toml_value(getattr(effective, attribute))}" for key, (attribute, _) in _KEYS.items()]
    return "\n".join(lines) + "\n"


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.breaklint] table, walking up from `start`."""
    directory = start if start.is_dir() else start.parent
    for candidate in [directory, *directory.parents]:
        found = settings_in(candidate)
        if found is not None:
            return found
    return None


def settings_in(directory: Path) -> Path | None:
    """`directory`'s own pyproject.toml when it holds a [tool.breaklint] table (or cannot be
    read as one: load_config says why), else None."""
    path = directory / "pyproject.toml"
    if not path.is_file():
        return None
    try:
        tool = read_toml(path).get("tool", {})
    except ConfigError:
        return path  # let load_config report it
    if not isinstance(tool, dict) or "breaklint" in tool:
        return path  # a `tool` that is not a table: load_config says so
    return None


# A pyproject.toml is a few KiB; one that is not (a generated file, /dev/zero behind a name) is
# not settings, and must not take the run's memory.
MAX_CONFIG_BYTES = 1024 * 1024


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's table, or ConfigError with one line naming the file."""
    try:
        data = read_regular(path, MAX_CONFIG_BYTES)
    except Unreadable as why:
        raise ConfigError(f"{path}: cannot read: {why}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8: {error}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        raise ConfigError(f"{path}: invalid TOML: nested too deeply for Python's TOML parser") from None


def load_config(path: Path | None, explicit: bool = False) -> Config:
    if path is None:
        return Config()
    data = read_toml(path)
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        if not isinstance(tool, dict):
            raise ConfigError(f"{path}: `tool` must be a table ([tool.breaklint]), got {_shown(tool)}")
        table = tool.get("breaklint")
    else:
        table = data
    if table is None:
        if explicit:
            raise ConfigError(f"{path}: no [tool.breaklint] table")
        return Config(root=path.parent.resolve(), source=path)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.breaklint] must be a table, got {_shown(table)}")
    settings: dict[str, object] = {}
    for key, value in table.items():
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise ConfigError(f"{path}: [tool.breaklint] unknown key {key!r} (known: {known})")
        attribute, convert = _KEYS[key]
        settings[attribute] = convert(value, f"{path}: [tool.breaklint] {key}")
    return Config(root=path.parent.resolve(), source=path, **settings)  # type: ignore[arg-type]
