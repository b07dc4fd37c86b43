"""Which torch_geometric lines and functions do the pyg_run.py cases execute? (eager, with the same calls)

    PYTHONPATH=SITE:. python benchmarks/accuracy/thirdparty/pyg_lines.py OUT.json [--compiling]

--compiling makes torch.compiler.is_compiling() return True while the models run, so that PyG's
`if is_compiling():` branches go the way they go under torch.compile (PyG reads it at call time).
OUT.json: {"lines": {relpath: [line, ...]}, "functions": {relpath: [[first, last, name], ...]}}.
"""
import json
import sys
from collections import defaultdict
from pathlib import Path

import torch
import torch_geometric

import pyg_run as D

SITE = str(Path(torch_geometric.__file__).resolve().parents[1]) + "/"
PKG = SITE + "torch_geometric/"
lines = defaultdict(set)
funcs = defaultdict(set)
# A case whose Dynamo run crashed: stop recording where Dynamo stopped (pyg_run.py's error for GraphUNet is an
# internal IndexError in the frame of the second remove_self_loops call of augment_adj, graph_unet.py:146, in the
# first call), so that lines Dynamo never reached do not count as exercised.
STOP = {"models/GraphUNet": ("torch_geometric/nn/models/graph_unet.py", 146)}
stop_at = None


class Stop(Exception):
    pass


def tracer(frame, event, arg):
    fn = frame.f_code.co_filename
    if not fn.startswith(PKG):
        return None
    if event == "call":
        code = frame.f_code
        last = max((ln for _, _, ln in code.co_lines() if ln), default=code.co_firstlineno)
        funcs[fn[len(SITE):]].add((code.co_firstlineno, last, code.co_qualname))
    if stop_at == (fn[len(SITE):], frame.f_lineno):
        raise Stop()
    lines[fn[len(SITE):]].add(frame.f_lineno)
    return tracer


def main():
    out = Path(sys.argv[1])
    if "--compiling" in sys.argv:
        torch.compiler.is_compiling = lambda: True
    errors = {}
    global stop_at
    for name, (build, kind) in D.BASIC.items():
        torch.manual_seed(0)
        stop_at = STOP.get(name)
        try:
            model = build()  # construction is not traced: only the calls are
            sys.settrace(tracer)
            model.eval()
            with torch.no_grad():
                model(*D.args_for(kind, D.G1))
            model.train(); model(*D.args_for(kind, D.G1)); model(*D.args_for(kind, D.G2))
        except Stop:
            errors[name] = f"stopped at {stop_at} (where its Dynamo run crashed)"
        except Exception as exc:  # noqa: BLE001
            errors[name] = repr(exc)[:300]
        finally:
            sys.settrace(None)
        print(name, errors.get(name, "ok"), flush=True)
    out.write_text(json.dumps({"lines": {k: sorted(v) for k, v in lines.items()},
                               "functions": {k: sorted(v) for k, v in funcs.items()}, "errors": errors}))


if __name__ == "__main__":
    main()
