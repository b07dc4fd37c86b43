"""Where an event happened, said so that a reader can find it: paths and the function charged.

No torch here: the parent (join, report) and the children (worker, hook) both use it.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Any

# Folders that hold installed distributions: a file below one is named by its import path.
_INSTALLED = ("site-packages", "dist-packages")

Place = tuple[str, int]  # (absolute filename, first line)
Link = tuple[str, int, str]  # a function of a wrapper chain: filename, first line, qualified name


def display_path(filename: str, cwd: Path) -> str:
    """A file of an installed package as its package path (`transformers/models/gpt2/modeling_gpt2.py`),
    one under `cwd` relative to it, anything else absolute: never a climb of `../`."""
    if not filename or filename.startswith("<"):
        return filename or "<unknown>"
    parts = Path(filename).parts
    installed = [i for i, part in enumerate(parts) if part in _INSTALLED]
    if installed and installed[-1] + 1 < len(parts):
        return "/".join(parts[installed[-1] + 1:])
    for base, path in ((os.path.abspath(cwd), os.path.abspath(filename)),
                       (os.path.realpath(cwd), os.path.realpath(filename))):
        if Path(path).is_relative_to(base):
            return Path(path).relative_to(base).as_posix()
    return os.path.abspath(filename)


def wrapper_chain(target: Any) -> list[Link]:
    """The code of `target` (a function, a bound method or an nn.Module's forward) and of each
    function it wraps (`functools.wraps`' `__wrapped__`), outermost first. Dynamo compiles the
    outermost (a library decorator's `wrapper`) and inlines the rest."""
    function = getattr(type(target), "forward", None) if _is_module(target) else target
    function = getattr(function, "__func__", function)
    chain: list[Link] = []
    seen: set[int] = set()
    while function is not None and id(function) not in seen:
        seen.add(id(function))
        code = getattr(function, "__code__", None)
        if code is not None:
            # The code's own name: functools.wraps gives a wrapper the wrapped function's __qualname__.
            chain.append((os.path.abspath(code.co_filename), code.co_firstlineno,
                          getattr(code, "co_qualname", None) or getattr(function, "__qualname__", code.co_name)))
        function = getattr(function, "__wrapped__", None)
        function = getattr(function, "__func__", function)
    return chain


def _is_module(target: Any) -> bool:
    return any(cls.__name__ == "Module" and cls.__module__.startswith("torch.nn") for cls in inspect.getmro(type(target)))


def charge(place: Place, chains: list[list[Link]]) -> Link | None:
    """The user's function for an event Dynamo charged to `place`: when `place` is a wrapper in
    the chain of a compiled target (and all such chains agree), the function it wraps."""
    innermost = {tuple(chain[-1]) for chain in chains if place in [(f, line) for f, line, _ in chain[:-1]]}
    return innermost.pop() if len(innermost) == 1 else None  # type: ignore[return-value]
