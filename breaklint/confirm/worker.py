"""One confirm target, in its own process: build the example, run every stage, write JSON.

    python -m breaklint.confirm.worker REQUEST.json RESULT.json

The parent (runner.py) owns the timeout; whatever happens here ends up in RESULT.json or, if
the process dies, in the parent's report. torch is imported here, never in the parent.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib.util
import json
import os
import statistics
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

import torch

from ..example import Example
from .capture import Capture, CudagraphSkip, capture_dynamo, every_call, every_call_reason
from .distributed import compile_target, ddp_buckets, init_from_environment, time_phases
from .kernels import count_kernels
from .places import Link, charge, wrapper_chain
from .stages import STAGES, CompilerStage
from .usage import Step, make_step, usage_of

Progress = Callable[[str, str], None]  # (stage, phase)
# (one call, on CUDA, timed calls, warm-up calls) -> (median ms, calls made): median_ms below;
# benchmarks/gpu/agreement.py passes one that also runs an independent timer between its rounds.
Timer = Callable[[Callable[[], Any], bool, int, int], tuple[float, int]]
WARM_S = 0.5
TOP_FUNCTIONS = 8  # graphs of the CUDA graph trees kept in a record, the most unreplayed first


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
    if example.probe_args is not None or example.probe_kwargs is not None:
        args = example.probe_args if example.probe_args is not None else example.args
        return args, example.probe_kwargs if example.probe_kwargs is not None else example.kwargs
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


def median_ms(call: Callable[[], Any], cuda: bool, repeat: int, warmup: int,
              between: Callable[[], Any] | None = None) -> tuple[float, int]:
    """Median wall time of one call: CUDA events on a GPU, perf_counter on CPU; warm-up excluded.
    On a GPU the warm-up lasts at least WARM_S: an idle GPU's clocks come up slowly, and a few
    launch-bound calls would be timed at them. Also returns how many calls it made. `between`
    runs after each timed call, outside the timing (benchmarks/gpu/agreement.py times an
    independent call there, so that the two timers' calls alternate)."""
    started = time.perf_counter()
    done = 0
    while done < warmup or (cuda and time.perf_counter() - started < WARM_S):
        call()
        done += 1
    times: list[float] = []
    collecting = gc.isenabled()
    gc.disable()  # as timeit does: a collection inside a timed call is not the call's cost
    try:
        _time_calls(call, cuda, repeat, times, between)
    finally:
        if collecting:
            gc.enable()
    return statistics.median(times), done + repeat


def _time_calls(call: Callable[[], Any], cuda: bool, repeat: int, times: list[float],
                between: Callable[[], Any] | None = None) -> None:
    if cuda:
        torch.cuda.synchronize()
    for _ in range(repeat):
        if cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        else:
            started = time.perf_counter()
            call()
            times.append((time.perf_counter() - started) * 1000)
        if between is not None:
            between()


def unreplayed_record(timed: Capture) -> dict[str, Any]:
    """What CUDA graph trees did not replay while a stage was timed: in all, and the graphs
    that did so most, with the trees' reasons for re-recording."""
    worst = sorted(timed.cudagraph_unreplayed_by_function.items(), key=lambda item: -item[1])[:TOP_FUNCTIONS]
    return {"cudagraph_unreplayed": timed.cudagraph_unreplayed, "cudagraph_unreplayed_by_function": dict(worst),
            "cudagraph_rerecord_reasons": dict(list(timed.cudagraph_rerecord_reasons.items())[:TOP_FUNCTIONS])}


def rerecorded_every_call(timed: Capture, calls: int) -> CudagraphSkip | None:
    """The every-call event (BL591) when one graph of the trees recorded on (nearly) every timed call."""
    by_function = timed.cudagraph_unreplayed_by_function
    worst = every_call(by_function, calls)
    if worst is None:
        return None
    reason = every_call_reason(worst[0], worst[1], f"the {calls} calls after the first", by_function,
                               timed.cudagraph_rerecord_reasons.get(worst[0], ""))
    return CudagraphSkip(reason, "", 0, "", effect="every-call")


def run_stage(stage: CompilerStage, example: Example, steps: Callable[[Callable[..., Any]], Step], cuda: bool,
              repeat: int, warmup: int, progress: Progress,
              timer: Timer = median_ms,
              phases: Callable[[Any], dict[str, Any]] | None = None) -> tuple[dict[str, Any], Capture]:
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
    compiled = compile_target(target, options)  # a DDP target: its module, DDP kept outside
    step = steps(compiled)
    args, kwargs = example.args, example.kwargs
    with capture_dynamo() as capture:
        try:
            progress(stage.name, "first call" if options is None else "compiling")
            started = time.perf_counter()
            if stage.inductor:
                from torch._inductor.utils import run_and_get_code

                output, codes = run_and_get_code(step, args, kwargs)
                record["kernels"] = count_kernels(codes)
            else:
                output = step(args, kwargs)
            if cuda:
                torch.cuda.synchronize()
            record["first_call_s"] = time.perf_counter() - started
            del output  # a live output would keep CUDA graph trees from replaying
            progress(stage.name, "timing")
            with capture_dynamo() as timed:
                record["median_ms"], calls = timer(lambda: step(args, kwargs), cuda, repeat, warmup)
            record.update(unreplayed_record(timed))
            rerecorded = rerecorded_every_call(timed, calls) if stage.name == "cudagraphs" else None
            if rerecorded is not None:
                capture.cudagraph_skips.append(rerecorded)
            if phases is not None:  # --nproc: the step by phase, with the same compiled callable
                progress(stage.name, "timing phases")
                record["phases_ms"] = phases(compiled)
        except Exception as error:  # a compiler crash is a finding of this stage, not the end of the run
            record["error"] = {"type": type(error).__name__, "message": str(error)[:4000],
                               "traceback": traceback.format_exc()[-8000:]}
    record["graphs"] = capture.graphs_compiled
    record["graph_breaks"] = len({(b.filename, b.lineno, b.gb_id) for b in capture.graph_breaks if not b.frame_skipped})
    record["recompiles"] = len(capture.recompiles)
    record["cudagraph_skips"] = len(capture.cudagraph_skips)
    probe = perturbed(example) if example.probe and stage.options is not None and not record["error"] else None
    if probe is not None:
        progress(stage.name, "recompile probe")
        with capture_dynamo() as probed:  # separately: the ladder counts the example's own calls
            try:
                step(*probe)
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


def charge_to_user(events: list[dict[str, Any]], chain: list[Link]) -> None:
    """Events Dynamo charged to a library decorator's wrapper (transformers' `utils/generic.py`)
    of the compiled target go to the function it wraps: the model's `forward`."""
    for event in events:
        place = (os.path.abspath(event.get("filename") or ""), int(event.get("lineno") or 0))
        user = charge(place, [chain]) if event["kind"] == "recompile" else None
        if user is not None:
            event.update(filename=user[0], lineno=user[1], function=user[2], via=f"{place[0]}:{place[1]}")


def run(request: dict[str, Any], checkpoint: Callable[[dict[str, Any]], None] = lambda r: None,
        progress: Progress = lambda stage, phase: None) -> dict[str, Any]:
    """Every wanted stage of the target; `checkpoint` gets the result after each stage, so
    that a time-out loses only the stage in flight."""
    result: dict[str, Any] = {"target": request["name"], "path": request["path"], "torch": torch.__version__,
                              "stages": [], "events": [], "executed": {}, "error": None,
                              "complete": False}  # True only in the worker's last write
    progress("example", "building")
    try:
        result["distributed"] = init_from_environment()  # --nproc: before the example builds DDP
        example = load_example(Path(request["path"]), request["name"])
        usage = usage_of(example)
        steps, result["usage"] = make_step(example, usage)
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
        eager = steps(example.target)
        result["executed"] = executed_lines(lambda: eager(example.args, example.kwargs), roots)
    except Exception as error:
        result["error"] = {"stage": "eager", "type": type(error).__name__, "message": str(error),
                           "traceback": traceback.format_exc()[-8000:]}
        return result
    checkpoint(result)
    chain = wrapper_chain(example.target)
    where = chain[-1][:2] if chain else None
    wanted = set(request["stages"])
    for stage in STAGES:
        if stage.name not in wanted:
            continue
        phases = (lambda compiled: time_phases(example, compiled, cuda, request["repeat"])) \
            if result["distributed"] and usage == "training" else None
        with ddp_buckets() as buckets:
            record, capture = run_stage(stage, example, steps, cuda, request["repeat"], request["warmup"], progress,
                                        phases=phases)
        if buckets:
            record["ddp_subgraphs"] = buckets  # DDPOptimizer's split: graphs per captured frame
        result["stages"].append(record)
        events = events_of(stage.name, capture, record.get("recompiles"))
        for op in (record.get("kernels") or {}).get("aten_fallbacks", []):
            events.append({"kind": "inductor_fallback", "stage": stage.name, "op": op, "filename": "", "lineno": 0})
        for event in events:
            # Some skips name no user frame (a mutation through __setitem__), and fallbacks never
            # do: charge the function that was compiled.
            if event["kind"] in ("cudagraph_skip", "inductor_fallback") and not event["lineno"] and where:
                event.update(filename=where[0], lineno=where[1], function_level=True)
        charge_to_user(events, chain)
        result["events"].extend(events)
        if record["error"]:
            place = _user_frame(record["error"]["traceback"], roots) or (request["path"], example_line(request))
            result["events"].append({"kind": "compile_error", "stage": stage.name, "filename": place[0],
                                     "lineno": place[1], **record["error"]})
        checkpoint(result)
    return result


def write_json(path: Path, data: Any) -> None:
    """Atomically: the parent may read it at any moment (a time-out, the progress display)."""
    partial = path.with_name(path.name + ".tmp")
    partial.write_text(json.dumps(data), encoding="utf-8")
    os.replace(partial, path)


def main(request_path: str, result_path: str) -> None:
    request = json.loads(Path(request_path).read_text(encoding="utf-8"))
    out = Path(result_path)
    status = Path(request["progress"]) if request.get("progress") else None

    def progress(stage: str, phase: str) -> None:
        if status is not None:
            write_json(status, {"stage": stage, "phase": phase, "since": time.time()})

    result = run(request, lambda partial: write_json(out, partial), progress)
    write_json(out, {**result, "complete": True})


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
