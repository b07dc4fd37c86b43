"""Run each case's `main()` under real Dynamo (backend "eager", a fresh cache each) and write
what it recompiled as JSON: `python dynamo_worker.py OUT.json CASE.py...`."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
from pathlib import Path

import torch

from breaklint.confirm.capture import capture_dynamo


def run(path: Path) -> dict:
    real_compile = torch.compile

    def eager_compile(model=None, **options):  # type: ignore[no-untyped-def]
        options.pop("mode", None)
        options["backend"] = "eager"
        return (lambda fn: real_compile(fn, **options)) if model is None else real_compile(model, **options)

    torch._dynamo.reset()
    torch.compile = eager_compile  # type: ignore[assignment]
    error = ""
    try:
        with capture_dynamo() as capture:
            spec = importlib.util.spec_from_file_location(f"recompile_case_{path.stem}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            module.main()
    except Exception as exc:  # a failing case is evidence, never the end of the run
        error = f"{type(exc).__name__}: {exc}"
    finally:
        torch.compile = real_compile  # type: ignore[assignment]
    own = [dataclasses.asdict(r) for r in capture.recompiles if Path(r.filename).resolve() == path.resolve()]
    return {"recompiles": own, "error": error}


def main(out: str, paths: list[str]) -> None:
    Path(out).write_text(json.dumps({str(Path(p).resolve()): run(Path(p).resolve()) for p in paths}), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
