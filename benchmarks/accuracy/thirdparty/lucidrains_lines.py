"""Which lines of the two packages do the Dynamo cases execute? (eager run, same calls, sys.settrace)

    PYTHONPATH=SITE:. python benchmarks/accuracy/thirdparty/lucidrains_lines.py OUT.json [CASE ...]

Each case of lucidrains_run.py is run eagerly (eval under no_grad, then train with batch 2 and 3,
the same calls lucidrains_run.py compiles) and every executed (file, line) in vector_quantize_pytorch/
and x_transformers/ is recorded, so a prediction on a line no case executes can be told apart
from one Dynamo traced without breaking.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

import lucidrains_run as D

SITE = str(D.SITE) + "/"
PKGS = tuple(SITE + p for p in ("vector_quantize_pytorch/", "x_transformers/"))
hits: dict[str, set[int]] = {}


def tracer(frame, event, arg):
    f = frame.f_code.co_filename
    if not f.startswith(PKGS):
        return None
    def local(frame, event, arg):
        if event == "line":
            hits.setdefault(frame.f_code.co_filename[len(SITE):], set()).add(frame.f_lineno)
        return local
    hits.setdefault(f[len(SITE):], set()).add(frame.f_lineno)
    return local


def go(build, make_inputs):
    torch.manual_seed(0)
    model = build(); model.eval()
    with torch.no_grad():
        model(*make_inputs(2))
    model.train(); model(*make_inputs(2)); model(*make_inputs(3))


if __name__ == "__main__":
    out = Path(sys.argv[1])
    allcases = {**D.VQ_CASES, **D.XT_CASES, **getattr(D, "EXTRA_CASES", {})}
    names = sys.argv[2:] or list(allcases)
    per_case = {}
    for n in names:
        hits.clear()
        sys.settrace(tracer)
        try:
            go(*allcases[n]); err = None
        except Exception as e:  # noqa: BLE001
            err = repr(e)[:300]
        finally:
            sys.settrace(None)
        per_case[n] = {"error": err, "lines": {f: sorted(v) for f, v in hits.items()}}
        print(n, err or "", sum(len(v) for v in hits.values()), flush=True)
    out.write_text(json.dumps(per_case))
