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
    sys.path.insert(0, str(path.parent))  # a case may import a `_helper.py` beside it
    for name in [n for n, m in sys.modules.items() if str(getattr(m, "__file__", "") or "").startswith(str(path.parent))]:
        del sys.modules[name]  # a helper compiles at import: a fresh one per case
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
        sys.path.remove(str(path.parent))
    # The case's own recompiles, and its helpers' (`_*.py` beside it: what it imports).
    own = [dataclasses.asdict(r) for r in capture.recompiles if Path(r.filename).resolve() == path.resolve()
           or (Path(r.filename).resolve().parent == path.parent and Path(r.filename).name.startswith("_"))]
    return {"recompiles": own, "error": error}


def main(out: str, paths: list[str]) -> None:
    Path(out).write_text(json.dumps({str(Path(p).resolve()): run(Path(p).resolve()) for p in paths}), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
