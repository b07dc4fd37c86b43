"""`[tool.breaklint]` in pyproject.toml -> a frozen, validated Config."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from .files import DEFAULT_EXCLUDE
from .versions import TorchVersion, default_target

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


def _str_list(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of strings, got {value!r}")
    return tuple(value)


def _bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: expected true or false, got {value!r}")
    return value


def python_version(text: str) -> tuple[int, int]:
    """`"3.12"` -> (3, 12); ValueError for anything else."""
    match = re.fullmatch(r"\s*3\.(\d+)\s*", text)
    if match is None:
        raise ValueError(f"not a Python version: {text!r} (expected e.g. '3.12')")
    return 3, int(match.group(1))


def _python(value: object, where: str) -> tuple[int, int]:
    if not isinstance(value, str):
        raise ConfigError(f"{where}: expected a version string such as \"3.12\", got {value!r}")
    try:
        return python_version(value)
    except ValueError as error:
        raise ConfigError(f"{where}: {error}") from None


def _version(value: object, where: str) -> TorchVersion:
    if not isinstance(value, str):
        raise ConfigError(f"{where}: expected a version string such as \"2.13\", got {value!r}")
    try:
        return TorchVersion.parse(value)
    except ValueError as error:
        raise ConfigError(f"{where}: {error}") from None


def _scope(value: object, where: str) -> str:
    if value not in ("compiled", "all"):
        raise ConfigError(f"{where}: expected \"compiled\" or \"all\", got {value!r}")
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
        raise ConfigError(f"{where}: expected a table of glob = [codes], got {value!r}")
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
        path = candidate / "pyproject.toml"
        if path.is_file():
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                return path  # let load_config report it
            if "breaklint" in data.get("tool", {}):
                return path
    return None


def load_config(path: Path | None, explicit: bool = False) -> Config:
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    table = data.get("tool", {}).get("breaklint") if path.name == "pyproject.toml" else data
    if table is None:
        if explicit:
            raise ConfigError(f"{path}: no [tool.breaklint] table")
        return Config(root=path.parent.resolve(), source=path)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.breaklint] must be a table")
    settings: dict[str, object] = {}
    for key, value in table.items():
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise ConfigError(f"{path}: [tool.breaklint] unknown key {key!r} (known: {known})")
        attribute, convert = _KEYS[key]
        settings[attribute] = convert(value, f"{path}: [tool.breaklint] {key}")
    return Config(root=path.parent.resolve(), source=path, **settings)  # type: ignore[arg-type]
