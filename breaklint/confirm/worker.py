"""One confirm target, in its own process: build the example, run every stage, write JSON.

    python -m breaklint.confirm.worker REQUEST.json RESULT.json

The parent (runner.py) owns the timeout; whatever happens here ends up in RESULT.json or, if
the process dies, in the parent's report. torch is imported here, never in the parent.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import statistics
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

import torch

from ..example import Example
from .capture import Capture, capture_dynamo
from .stages import STAGES, Stage

# Lines a kernel count looks for in generated code (Inductor's output_code).
TRITON_KERNEL = "@triton.jit"
CPP_KERNEL = "extern \"C\""
EXTERN_CALL = "extern_kernels."
ATEN_CALL = re.compile(r"torch\.ops\.aten\.(\w+)\.(\w+)\(")


def load_example(path: Path, name: str) -> Example:
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"breaklint_target_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    made = getattr(module, name)()
    if isinstance(made, Example):
        return made
    if isinstance(made, tuple) and made and callable(made[0]):  # (target, args[, probe_args])
        return Example(made[0], tuple(made[1]) if len(made) > 1 else (),
                       probe_args=tuple(made[2]) if len(made) > 2 else None)
    raise TypeError(f"{name}() must return breaklint.Example(target, args, ...), got {type(made).__name__}")


def on_cuda(example: Example) -> bool:
    tensors = [a for a in (*example.args, *example.kwargs.values()) if isinstance(a, torch.Tensor)]
    return any(t.is_cuda for t in tensors)


def perturbed(example: Example) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """The recompile probe's inputs: the example's own, or every tensor that shares the first
    tensor's batch size cut to half of it (a batch of 1 is doubled)."""
    if example.probe_args is not None:
        return example.probe_args, example.probe_kwargs or example.kwargs
    tensors = [a for a in (*example.args, *example.kwargs.values()) if isinstance(a, torch.Tensor) and a.dim() > 0]
    if not tensors:
        return None
    batch = tensors[0].shape[0]

    def change(value: Any) -> Any:
        if not (isinstance(value, torch.Tensor) and value.dim() > 0 and value.shape[0] == batch):
            return value
        return value[: batch // 2] if batch > 1 else torch.cat([value, value])

    return tuple(change(a) for a in example.args), {k: change(v) for k, v in example.kwargs.items()}


def executed_lines(call: Callable[[], Any], roots: list[str]) -> dict[str, list[int]]:
    """Lines of files under `roots` that one eager call runs: tells `not reached` from `not reproduced`."""
    seen: dict[str, set[int]] = {}

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        filename = frame.f_code.co_filename
        if not filename.startswith(tuple(roots)):
            return None  # do not trace torch or the standard library
        lines = seen.setdefault(filename, set())
        lines.add(frame.f_lineno)

        def local(frame: Any, event: str, arg: Any) -> Any:
            if event == "line":
                lines.add(frame.f_lineno)
            return local

        return local

    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(None)
    return {f: sorted(lines) for f, lines in seen.items()}


def median_ms(call: Callable[[], Any], cuda: bool, repeat: int, warmup: int) -> float:
    """Median wall time of one call: CUDA events on a GPU, perf_counter on CPU; warm-up excluded."""
    for _ in range(warmup):
        call()
    times = []
    if cuda:
        torch.cuda.synchronize()
        for _ in range(repeat):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
    else:
        for _ in range(repeat):
            started = time.perf_counter()
            call()
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _needs_backward(output: Any) -> bool:
    return isinstance(output, torch.Tensor) and output.requires_grad


def _backward(output: Any) -> None:
    output.float().sum().backward()


def count_kernels(codes: list[str]) -> dict[str, Any]:
    """What Inductor produced: Triton/C++ kernels, extern (cuBLAS/MKL) calls, and ATen fallbacks —
    real calls only: the generated code also names ATen ops in comments (`# Original ATen: ...`)."""
    text = "\n".join(codes)
    calls = (ATEN_CALL.search(line) for line in text.splitlines() if not line.lstrip().startswith("#"))
    fallbacks = sorted({f"{m[1]}.{m[2]}" for m in calls if m})
    return {
        "triton": text.count(TRITON_KERNEL),
        "cpp": text.count(CPP_KERNEL),
        "extern": text.count(EXTERN_CALL),
        "aten_fallbacks": fallbacks,
    }


def run_stage(stage: Stage, example: Example, cuda: bool, repeat: int, warmup: int) -> tuple[dict[str, Any], Capture]:
    record: dict[str, Any] = {"stage": stage.name, "skipped": None, "error": None}
    if stage.needs_cuda and not cuda:
        record["skipped"] = "needs CUDA: the example's inputs are not on a GPU" if torch.cuda.is_available() \
            else "needs CUDA: no GPU on this machine"
        return record, Capture()
    torch._dynamo.reset()
    clear = getattr(torch._dynamo.utils, "clear_compilation_metrics", None)
    if clear is not None:
        clear()  # so that compile_times() is this stage's own
    target = example.target
    options = {**example.compile_options, **stage.options} if stage.options is not None else None
    compiled = torch.compile(target, **options) if options is not None else target
    args, kwargs = example.args, example.kwargs
    with capture_dynamo() as capture:
        try:
            started = time.perf_counter()
            if stage.inductor:
                from torch._inductor.utils import run_and_get_code

                output, codes = run_and_get_code(compiled, *args, **kwargs)
                record["kernels"] = count_kernels(codes)
            else:
                output = compiled(*args, **kwargs)
            if stage.options is not None and _needs_backward(output):
                _backward(output)
                record["backward"] = True
            if cuda:
                torch.cuda.synchronize()
            record["first_call_s"] = time.perf_counter() - started
            record["median_ms"] = median_ms(lambda: compiled(*args, **kwargs), cuda, repeat, warmup)
        except Exception as error:  # a compiler crash is a finding of this stage, not the end of the run
            record["error"] = {"type": type(error).__name__, "message": str(error)[:4000],
                               "traceback": traceback.format_exc()[-8000:]}
    record["graphs"] = capture.graphs_compiled
    record["graph_breaks"] = len({(b.filename, b.lineno, b.gb_id) for b in capture.graph_breaks if not b.frame_skipped})
    record["recompiles"] = len(capture.recompiles)
    record["cudagraph_skips"] = len(capture.cudagraph_skips)
    probe = perturbed(example) if stage.options is not None and not record["error"] else None
    if probe is not None:
        with capture_dynamo() as probed:  # separately: the ladder counts the example's own calls
            try:
                compiled(*probe[0], **probe[1])
            except Exception as error:  # the probe's inputs may not suit the model: say so, go on
                record["probe_error"] = f"{type(error).__name__}: {str(error)[:500]}"
        record["probe_recompiles"] = len(probed.recompiles)
        capture.recompiles.extend(probed.recompiles)
        capture.graph_breaks.extend(probed.graph_breaks)
        capture.cudagraph_skips.extend(probed.cudagraph_skips)
    record["compile_times_us"] = compile_times()
    return record, capture


def compile_times() -> dict[str, int]:
    """Cumulative compile time per pipeline stage, from torch's own compilation metrics."""
    try:
        from torch._dynamo.utils import get_compilation_metrics
    except ImportError:
        return {}
    totals: dict[str, int] = {}
    for metrics in get_compilation_metrics():
        for key in ("dynamo_cumulative_compile_time_us", "aot_autograd_cumulative_compile_time_us",
                    "inductor_cumulative_compile_time_us", "triton_compile_time_us"):
            value = getattr(metrics, key, None)
            if isinstance(value, int):
                totals[key] = totals.get(key, 0) + value
    return totals


def compiled_frames() -> list[list[Any]]:
    """[filename, first line] of every frame Dynamo compiled in this process."""
    try:
        from torch._dynamo.utils import get_compilation_metrics
    except ImportError:
        return []
    return [[m.co_filename, m.co_firstlineno] for m in get_compilation_metrics()
            if getattr(m, "co_filename", None)]


def code_location(target: Any) -> tuple[str, int] | None:
    """File and first line of the function (or the module's forward) that confirm compiled."""
    import inspect

    function = getattr(target, "forward", target)
    code = getattr(inspect.unwrap(function), "__code__", None)
    return (code.co_filename, code.co_firstlineno) if code is not None else None


def events_of(stage: str, capture: Capture, probe_from: int | None = None) -> list[dict[str, Any]]:
    """Events as JSON records; recompiles from index `probe_from` on came from the recompile probe."""
    events = []
    for b in capture.graph_breaks:
        events.append({"kind": "graph_break", "stage": stage, **dataclasses.asdict(b)})
    for i, r in enumerate(capture.recompiles):
        events.append({"kind": "recompile", "stage": stage, "filename": r.filename, "lineno": r.firstlineno,
                       "function": r.function, "reasons": list(r.reasons),
                       "probe": probe_from is not None and i >= probe_from})
    for s in capture.cudagraph_skips:
        events.append({"kind": "cudagraph_skip", "stage": stage, **dataclasses.asdict(s)})
    return events


def _user_frame(text: str, roots: list[str]) -> tuple[str, int] | None:
    """The innermost frame of a traceback that lies in the user's tree."""
    import re

    frames = [(m[1], int(m[2])) for m in re.finditer(r'File "([^"]+)", line (\d+)', text)]
    user = [f for f in frames if os.path.realpath(f[0]).startswith(tuple(roots))]
    return user[-1] if user else None


def example_line(request: dict[str, Any]) -> int:
    return int(request.get("line") or 1)


def run(request: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {"target": request["name"], "path": request["path"], "torch": torch.__version__,
                              "stages": [], "events": [], "executed": {}, "error": None}
    try:
        example = load_example(Path(request["path"]), request["name"])
    except Exception as error:
        result["error"] = {"stage": "example", "type": type(error).__name__, "message": str(error),
                           "traceback": traceback.format_exc()[-8000:]}
        return result
    cuda = on_cuda(example)
    result["device"] = torch.cuda.get_device_name() if cuda else "cpu"
    try:
        import triton  # noqa: F401

        result["triton"] = triton.__version__
    except ImportError:
        result["triton"] = None
    roots = [os.path.realpath(r) + os.sep for r in request["roots"]]
    try:
        result["executed"] = executed_lines(lambda: example.target(*example.args, **example.kwargs), roots)
    except Exception as error:
        result["error"] = {"stage": "eager", "type": type(error).__name__, "message": str(error),
                           "traceback": traceback.format_exc()[-8000:]}
        return result
    wanted = set(request["stages"])
    for stage in STAGES:
        if stage.name not in wanted:
            continue
        record, capture = run_stage(stage, example, cuda, request["repeat"], request["warmup"])
        result["stages"].append(record)
        events = events_of(stage.name, capture, record.get("recompiles"))
        where = code_location(example.target)
        for op in (record.get("kernels") or {}).get("aten_fallbacks", []):
            events.append({"kind": "inductor_fallback", "stage": stage.name, "op": op, "filename": "", "lineno": 0})
        for event in events:
            # Some skips name no user frame (a mutation through __setitem__), and fallbacks never
            # do: charge the function that was compiled.
            if event["kind"] in ("cudagraph_skip", "inductor_fallback") and not event["lineno"] and where:
                event.update(filename=where[0], lineno=where[1], function_level=True)
        result["events"].extend(events)
        if record["error"]:
            where = _user_frame(record["error"]["traceback"], roots) or (request["path"], example_line(request))
            result["events"].append({"kind": "compile_error", "stage": stage.name, "filename": where[0],
                                     "lineno": where[1], **record["error"]})
    return result


def main(request_path: str, result_path: str) -> None:
    request = json.loads(Path(request_path).read_text(encoding="utf-8"))
    result = run(request)
    Path(result_path).write_text(json.dumps(result), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
