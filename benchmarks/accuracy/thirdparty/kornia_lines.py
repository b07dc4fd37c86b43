"""Which kornia lines and functions do the kornia_run.py cases execute? (eager, with the same calls)

    PYTHONPATH=SITE:. python benchmarks/accuracy/thirdparty/kornia_lines.py OUT.json [--compiling]

Modelled on benchmarks/accuracy/thirdparty/pyg_lines.py. --compiling makes kornia's is_compiling() (and
torch.compiler.is_compiling) return True while the cases run, so that kornia's many `if is_compiling():`
branches go the way they go under torch.compile (kornia reads them at call time).
OUT.json: {"lines": {relpath: [line, ...]}, "functions": {relpath: [[first, last, name], ...]}, "errors": {...}}.
"""
import json
import sys
from collections import defaultdict
from pathlib import Path

import torch
import kornia
import kornia.core.utils as KU

import kornia_run as D

SITE = str(Path(kornia.__file__).resolve().parents[1]) + "/"
PKG = SITE + "kornia/"
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
    if "--compiling" in sys.argv:
        torch.compiler.is_compiling = lambda: True
        KU._torch_is_compiling = lambda: True
    errors = {}
    for name, build in D.CASES_BUILD.items():
        torch.manual_seed(0)
        try:
            model = build()  # construction is not traced: only the calls are
            sys.settrace(tracer)
            model.eval()
            with torch.no_grad():
                model(D.image(**D.S1))
            model.train(); model(D.image(**D.S1)); model(D.image(**D.S2))
        except Exception as exc:  # noqa: BLE001
            errors[name] = repr(exc)[:300]
        finally:
            sys.settrace(None)
        print(name, errors.get(name, "ok"), flush=True)
    out.write_text(json.dumps({"lines": {k: sorted(v) for k, v in lines.items()},
                               "functions": {k: sorted(v) for k, v in funcs.items()}, "errors": errors}))


if __name__ == "__main__":
    main()
