"""Run rule testdata through real Dynamo in a clean interpreter and print what it did as JSON.

A separate process keeps pytest's own patches (its `pdb.set_trace`, its stdin) and Dynamo's
caches out of the experiment. Every compiled callable a module creates is called three times
with fresh `torch.randn(8, 8)` (or with the argument lists in the module's `CALLS` dict) under
`backend="eager"`: graph breaks and guards are Dynamo's own, no backend is needed to see them.

    python tests/ground_truth_runner.py OUT.json FILE.py [FILE.py ...]

The result goes to a file: pdb and user code may print to stdout.
"""

from __future__ import annotations

import bdb
import dataclasses
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import torch

from breaklint.confirm.capture import capture_dynamo

DEFAULT_CALLS = 3


def load_compiled(path: Path) -> tuple[Any, list[Any]]:
    """Import the module with torch.compile forced to the eager backend; return what it compiled."""
    real_compile = torch.compile
    compiled: list[Any] = []

    def remember(obj: Any) -> Any:
        compiled.append(obj)
        return obj

    def eager_compile(model: Any = None, **options: Any) -> Any:
        options.pop("mode", None)
        options["backend"] = "eager"
        if model is None:  # @torch.compile(...) used as a decorator factory
            return lambda fn: remember(real_compile(fn, **options))
        return remember(real_compile(model, **options))

    torch.compile = eager_compile  # type: ignore[assignment]
    try:
        name = f"breaklint_testdata_{path.parent.name}_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    finally:
        torch.compile = real_compile  # type: ignore[assignment]
    return module, compiled


def run_file(path: Path) -> dict[str, Any]:
    module, compiled = load_compiled(path)
    calls: dict[str, list[tuple[Any, ...]]] = getattr(module, "CALLS", {})
    cases: dict[str, Any] = {}
    for obj in compiled:
        name = next((n for n, v in vars(module).items() if v is obj), repr(obj))
        torch._dynamo.reset()
        argument_lists = calls.get(name) or [(torch.randn(8, 8),) for _ in range(DEFAULT_CALLS)]
        with capture_dynamo() as capture:
            for args in argument_lists:
                try:
                    obj(*args)
                except bdb.BdbQuit:  # pdb.set_trace() ran eagerly after the break and read EOF
                    pass
        cases[name] = {
            "graph_breaks": [dataclasses.asdict(b) for b in capture.graph_breaks],
            "recompiles": [dataclasses.asdict(r) for r in capture.recompiles],
        }
    return cases


def main(out: str, paths: list[str]) -> None:
    result = {str(Path(p).resolve()): run_file(Path(p).resolve()) for p in paths}
    Path(out).write_text(json.dumps(result), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
