"""Which transformers lines and functions do the transformers_run.py cases execute? (eager, with the same calls)

    PYTHONPATH=SITE:. python benchmarks/accuracy/thirdparty/transformers_lines.py OUT.json [--eager]

Modelled on benchmarks/accuracy/thirdparty/monai_lines.py and kornia_lines.py. transformers branches on
`is_torchdynamo_compiling()` (torch.compiler.is_compiling()) in the code the cases run (masking_utils,
modeling_utils, the cache, generic output handling, several models), so by default the eager run has
torch.compiler.is_compiling() return True and takes the branches Dynamo takes, as kornia_lines.py does;
--eager records the lines of a plain eager run instead. Construction is not traced, only the calls (backward
too: transformers defines no autograd.Function the cases reach).
OUT.json: {"lines": {relpath: [line, ...]}, "functions": {relpath: [[first, last, name], ...]}, "errors": {...}}.
"""
import json
import sys
from collections import defaultdict
from pathlib import Path

import torch
import transformers

import transformers_run as D

SITE = str(Path(transformers.__file__).resolve().parents[1]) + "/"
PKG = SITE + "transformers/"
lines = defaultdict(set)
funcs = defaultdict(set)


def tracer(frame, event, arg):
    fn = frame.f_code.co_filename
    if not fn.startswith(PKG):
        return None
    if event == "call":
        code = frame.f_code
        last = max((ln for _, _, ln in code.co_lines() if ln), default=code.co_firstlineno)
        funcs[fn[len(SITE):]].add((code.co_firstlineno, last, code.co_qualname))
    lines[fn[len(SITE):]].add(frame.f_lineno)
    return tracer


def main():
    out = Path(sys.argv[1])
    if "--eager" not in sys.argv:
        torch.compiler.is_compiling = lambda: True
    errors = {}
    for name, (build, use) in D.CASES_BUILD.items():
        torch.manual_seed(0)
        try:
            model = build()  # construction is not traced: only the calls are
            sys.settrace(tracer)
            use(model, model)
        except Exception as exc:  # noqa: BLE001
            errors[name] = repr(exc)[:300]
        finally:
            sys.settrace(None)
        print(name, errors.get(name, "ok"), flush=True)
    out.write_text(json.dumps({"lines": {k: sorted(v) for k, v in lines.items()},
                               "functions": {k: sorted(v) for k, v in funcs.items()}, "errors": errors}))


if __name__ == "__main__":
    main()
