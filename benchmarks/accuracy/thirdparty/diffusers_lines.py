"""Which diffusers lines and functions do the diffusers_run.py cases execute? (eager, with the same calls)

    HF_HUB_OFFLINE=1 PYTHONPATH=SITE:. python benchmarks/accuracy/thirdparty/diffusers_lines.py OUT.json [--compiling]

Modelled on benchmarks/accuracy/thirdparty/monai_lines.py. The diffusers code the cases run reads
torch.compiler.is_compiling() in one place: `utils/torch_utils.py`'s `lru_cache_unless_export`, which calls the
function itself while compiling and its `functools.lru_cache` otherwise (`attention_dispatch.py`'s
`_prepare_for_flash_attn_or_sage_varlen` and QwenImage's RoPE). --compiling makes is_compiling() return True, as
it does under Dynamo, and is how the committed lines are recorded. Each case's inputs are made before tracing starts (a
scheduler's `scale_model_input`, called outside the compiled `step`, is not recorded).
OUT.json: {"lines": {relpath: [line, ...]}, "functions": {relpath: [[first, last, name], ...]}, "errors": {...}}.
"""
import json
import sys
from collections import defaultdict
from pathlib import Path

import torch
import diffusers

import diffusers_run as D

SITE = str(Path(diffusers.__file__).resolve().parents[1]) + "/"
PKG = SITE + "diffusers/"
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
    errors = {}
    for name in D.CASES_BUILD:
        torch.manual_seed(0)
        try:
            built, steps, backward = D.calls(name)  # construction and inputs are not traced: only the calls are
            for i, (mode, args) in enumerate(steps):
                if mode == "eval":
                    built.eval()
                    sys.settrace(tracer)
                    with torch.no_grad():
                        built(*args)
                    sys.settrace(None)
                    continue
                if mode == "train":
                    built.train()
                sys.settrace(tracer)
                result = built(*args)
                sys.settrace(None)  # backward runs no diffusers code the compiled forward traces
                loss = D._loss_of(result) if backward and i == 1 else None
                if loss is not None:
                    loss.backward()
        except Exception as exc:  # noqa: BLE001
            errors[name] = repr(exc)[:300]
        finally:
            sys.settrace(None)
        print(name, errors.get(name, "ok"), flush=True)
    out.write_text(json.dumps({"lines": {k: sorted(v) for k, v in lines.items()},
                               "functions": {k: sorted(v) for k, v in funcs.items()}, "errors": errors}))


if __name__ == "__main__":
    main()
