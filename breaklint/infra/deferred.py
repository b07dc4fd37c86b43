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

OnImport = Callable[[types.ModuleType], None]


class _Deferred(types.ModuleType):
    def __init__(self, name: str, on_import: OnImport | None) -> None:
        super().__init__(name)
        self._on_import = on_import

    def __getattr__(self, name: str) -> object:  # only for what the stand-in does not hold yet
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        real = importlib.import_module(self.__name__)
        on_import = self.__dict__.pop("_on_import", None)
        self.__dict__.update(real.__dict__)
        if on_import is not None:
            on_import(real)
        return getattr(real, name)


def defer(name: str, on_import: OnImport | None = None) -> None:
    """Import `name` on first use, then call `on_import` with it (at once when it is already
    imported)."""
    if name not in sys.modules:
        sys.modules[name] = _Deferred(name, on_import)
    elif on_import is not None:
        on_import(sys.modules[name])
