"""Which MONAI lines and functions do the monai_run.py cases execute? (eager, with the same calls)

    PYTHONPATH=SITE:. python benchmarks/accuracy/thirdparty/monai_lines.py OUT.json [--compiling]

Modelled on benchmarks/accuracy/thirdparty/kornia_lines.py. The MONAI code the cases run tells eager from
compiled only through torch.jit.is_scripting() and torch.jit.is_tracing() (SwinUNETR's window mask and
attention), which are False under torch.compile as in eager, so the eager run takes the branches Dynamo takes.
--compiling (as kornia_lines.py and pyg_lines.py have it) also makes torch.compiler.is_compiling() return True,
which only monai/apps/detection reads (no case runs it); the committed lines are recorded without it.
OUT.json: {"lines": {relpath: [line, ...]}, "functions": {relpath: [[first, last, name], ...]}, "errors": {...}}.
"""
import json
import sys
from collections import defaultdict
from pathlib import Path

import torch
import monai

import monai_run as D

SITE = str(Path(monai.__file__).resolve().parents[1]) + "/"
PKG = SITE + "monai/"
lines = defaultdict(set)
funcs = defaultdict(set)
# Cases whose Dynamo run crashed (as pyg_lines.py's GraphUNet): stop recording where Dynamo stopped. Both fail in
# their first call, inside convert_to_tensor(<a tuple of ints>, wrap_sequence=True): torch.as_tensor of a tuple of
# the 0-d tensors it made of each int fails under fake tensors (TorchRuntimeError), at type_conversion.py:186.
STOP = {"layers/MedianFilter": ("monai/utils/type_conversion.py", 186),
        "layers/AffineTransform": ("monai/utils/type_conversion.py", 186)}
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
    for name, (build, inputs, backward) in D.CASES_BUILD.items():
        torch.manual_seed(0)
        monai.utils.set_determinism(seed=0)
        stop_at = STOP.get(name)
        try:
            model = build()  # construction is not traced: only the calls are
            sys.settrace(tracer)
            model.eval()
            with torch.no_grad():
                model(*inputs(1))
            model.train(); result = model(*inputs(1))
            sys.settrace(None)  # backward runs no MONAI code the compiled forward traces
            loss = D._loss_of(result) if backward else None
            if loss is not None:
                loss.backward()
            sys.settrace(tracer)
            model(*inputs(2))
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
