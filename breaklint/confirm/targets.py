"""Finding confirm targets without importing anything: example providers are found by syntax.

A provider is a top-level function decorated with `@breaklint.example` (or `@example` imported
from breaklint), or any public top-level function of a file named `breaklint_examples.py`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from breaklint.infra.files import DEFAULT_EXCLUDE, is_excluded

EXAMPLES_FILE = "breaklint_examples.py"


@dataclass(frozen=True)
class Target:
    path: Path  # absolute
    name: str  # the provider function
    line: int

    @property
    def label(self) -> str:
        return f"{self.path.name}::{self.name}"


class TargetError(Exception):
    """A target spec that names nothing runnable."""


def _is_example_decorator(decorator: ast.expr, modules: set[str], names: set[str]) -> bool:
    """`@breaklint.example`, `@bl.example` (import breaklint as bl), `@example` (from breaklint)."""
    if isinstance(decorator, ast.Call):
        decorator = decorator.func
    if isinstance(decorator, ast.Attribute):
        return decorator.attr == "example" and isinstance(decorator.value, ast.Name) and decorator.value.id in modules
    return isinstance(decorator, ast.Name) and decorator.id in names


def providers_in(path: Path) -> list[Target]:
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return []  # `breaklint check` reports such files; confirm just has nothing to run
    module_aliases = {"breaklint"}
    decorator_aliases: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            module_aliases |= {a.asname or a.name for a in node.names if a.name == "breaklint"}
        elif isinstance(node, ast.ImportFrom) and node.module == "breaklint":
            decorator_aliases |= {a.asname or a.name for a in node.names if a.name == "example"}
    every_public = path.name == EXAMPLES_FILE
    found = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        decorated = any(_is_example_decorator(d, module_aliases, decorator_aliases) for d in node.decorator_list)
        takes_no_arguments = not node.args.args and not node.args.posonlyargs
        if decorated or (every_public and not node.name.startswith("_") and takes_no_arguments):
            found.append(Target(path.resolve(), node.name, node.lineno))
    return found


def discover_targets(spec: str) -> list[Target]:
    """`path/to/file.py`, `path/to/file.py::provider`, or a directory (searched recursively)."""
    where, _, name = spec.partition("::")
    path = Path(where)
    if path.is_dir():
        files = sorted(
            p for p in path.rglob("*.py") if not is_excluded(p, path, DEFAULT_EXCLUDE, path)
        )
    elif path.is_file():
        files = [path]
    else:
        raise TargetError(f"no such file or directory: {where}")
    targets = [t for f in files for t in providers_in(f)]
    if name:
        targets = [t for t in targets if t.name == name]
        if not targets:
            raise TargetError(f"no example provider named {name!r} in {where}")
    return targets
