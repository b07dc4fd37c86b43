"""A stand-in for torchvision in the accuracy benchmark.

PyPI's torchvision wheel cannot load its C extension beside the CPU torch pin, and its import then
fails. timm's model code needs only `torchvision.ops.misc.FrozenBatchNorm2d` (provided for real in
`ops/misc.py`); `timm.data` imports transforms and datasets at module level without using them to
build models, so every other `torchvision.*` name resolves to an inert placeholder.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types


class _Placeholder(type):
    """A class whose every attribute is another placeholder class (`InterpolationMode.NEAREST`)."""

    def __getattr__(cls, name: str) -> "_Placeholder":
        if name.startswith("__"):
            raise AttributeError(name)
        return _Placeholder(name, (), {})


class _StubModule(types.ModuleType):
    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Placeholder(name, (), {})


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves any `torchvision.<sub>` module that has no file here as a stub module."""

    def find_spec(self, fullname, path, target=None):  # type: ignore[no-untyped-def]
        if not fullname.startswith("torchvision.") or fullname.startswith("torchvision.ops"):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):  # type: ignore[no-untyped-def]
        module = _StubModule(spec.name)
        module.__path__ = []  # a package: submodules are stubs too
        return module

    def exec_module(self, module) -> None:  # type: ignore[no-untyped-def]
        pass


sys.meta_path.append(_StubFinder())
__version__ = "0.0+breaklint-shim"


def __getattr__(name: str) -> object:
    if name.startswith("__"):
        raise AttributeError(name)
    return _Placeholder(name, (), {})
