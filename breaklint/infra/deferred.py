"""libcst, imported on first use by the command line.

A warm `breaklint check` answers from the cache and never parses: importing libcst (its node
classes are some two hundred dataclasses) was a third of such a run. The CLI puts a stand-in
for the `libcst` module in `sys.modules`; `import libcst as cst` binds it, and the first
attribute read (`cst.Name`, `import libcst.metadata`) imports the real package and fills the
stand-in with its namespace, so later reads cost what they cost on the real module. Modules
therefore read nothing of libcst while they are imported (tests/test_cli.py checks it).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Callable


class _Deferred(types.ModuleType):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._then: list[Callable[[types.ModuleType], None]] = []

    def __getattr__(self, name: str) -> object:  # only for what the stand-in does not hold yet
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        real = importlib.import_module(self.__name__)
        then = self.__dict__.pop("_then", [])
        self.__dict__.update(real.__dict__)
        for call in then:
            call(real)
        return getattr(real, name)


def defer(name: str) -> None:
    """Import `name` on first use (nothing to do when it is already imported)."""
    if name not in sys.modules:
        sys.modules[name] = _Deferred(name)


def when_imported(name: str, then: Callable[[types.ModuleType], None]) -> None:
    """`then(module)` once module `name` is imported: now if it is, else when first used."""
    module = sys.modules.get(name)
    if module is None:
        defer(name)
        module = sys.modules[name]
    if isinstance(module, _Deferred) and "_then" in module.__dict__:
        module._then.append(then)
    else:
        then(module)


def imported(name: str) -> bool:
    """Whether module `name` is really imported (not a stand-in still waiting for its first use)."""
    module = sys.modules.get(name)
    return module is not None and not isinstance(module, _Deferred)
