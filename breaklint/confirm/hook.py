"""Inside every Python process of an observed command (started by a `sitecustomize`, see
observe.py): capture the compiler's events and, for `--ladder`, force each `torch.compile`
call to one stage and time the compiled callables.

    BREAKLINT_OBSERVE_DIR  where each process writes `events-<pid>.json` at exit
    BREAKLINT_STAGE        --ladder: the stage every torch.compile call is forced to

`torch.compile` is wrapped in both modes, and so is `torch._dynamo.optimize(backend)(fn)` (what
torch.compile calls, and what older code calls itself): observe mode only notes what was compiled
(so that a recompile Dynamo charges to a library decorator's wrapper goes to the function it
wraps), and returns torch's own result unchanged.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import statistics
import threading
import time
from typing import Any, Callable

OUT_VARIABLE = "BREAKLINT_OBSERVE_DIR"
STAGE_VARIABLE = "BREAKLINT_STAGE"
PENDING_MAX = 4096  # CUDA event pairs kept before the oldest are read back


def forced_options(options: dict[str, Any], stage: str) -> dict[str, Any] | None:
    """The user's torch.compile options with the stage's backend and mode; None: run eagerly.
    `fullgraph`, `dynamic` and `disable` stay; Inductor `options` stay for the Inductor stages
    (with CUDA graphs turned on through them where given, as torch refuses `mode` with `options`)."""
    from .stages import STAGES

    wanted = next(s for s in STAGES if s.name == stage).options
    if wanted is None:
        return None
    kept = {k: v for k, v in options.items() if k in ("fullgraph", "dynamic", "disable")}
    kept["backend"] = wanted["backend"]
    inductor_options = options.get("options")
    if wanted["backend"] == "inductor" and inductor_options:
        kept["options"] = {**inductor_options, "triton.cudagraphs": stage == "cudagraphs"}
    elif "mode" in wanted:
        kept["mode"] = wanted["mode"]
    return kept


class CallTimes:
    """Time spent in each compiled callable: the first call (compiles) on its own, the others
    by CUDA events once CUDA is in use (no synchronisation per call), else by the clock. A call
    made inside another timed call counts once, in the outer one."""

    def __init__(self) -> None:
        self.first_s: dict[str, float] = {}
        self.later_ms: dict[str, list[float]] = {}
        self.pending: list[tuple[str, Any, Any]] = []
        self.local = threading.local()
        self.cuda = False

    def wrap(self, function: Callable[..., Any], label: str) -> Callable[..., Any]:
        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if getattr(self.local, "depth", 0):
                return function(*args, **kwargs)
            self.local.depth = 1
            try:
                return self._call(function, label, args, kwargs)
            finally:
                self.local.depth = 0

        return timed

    def _call(self, function: Callable[..., Any], label: str, args: Any, kwargs: Any) -> Any:
        import torch

        # Checked until CUDA is in use, then not again: everything done here before the start
        # event and after the end one is the hook's cost, which a timer around the call counts.
        cuda = self.cuda or (torch.cuda.is_available() and torch.cuda.is_initialized())
        if label not in self.first_s:
            started = time.perf_counter()
            result = function(*args, **kwargs)
            if torch.cuda.is_available() and torch.cuda.is_initialized():
                torch.cuda.synchronize()
            self.first_s[label] = time.perf_counter() - started
            self.later_ms.setdefault(label, [])
            return result
        if not cuda:
            started = time.perf_counter()
            result = function(*args, **kwargs)
            self.later_ms[label].append((time.perf_counter() - started) * 1000)
            return result
        self.cuda = True
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        result = function(*args, **kwargs)
        end.record()
        self.pending.append((label, start, end))
        if len(self.pending) > PENDING_MAX:
            self.drain(PENDING_MAX // 2)
        return result

    def drain(self, count: int | None = None) -> None:
        done, self.pending = self.pending[:count], self.pending[len(self.pending) if count is None else count:]
        for label, start, end in done:
            end.synchronize()
            self.later_ms[label].append(start.elapsed_time(end))

    def summary(self) -> dict[str, dict[str, Any]]:
        self.drain()
        return {label: {"calls": 1 + len(self.later_ms.get(label, [])), "first_call_s": first,
                        "later_ms": sum(self.later_ms.get(label, [])),
                        "median_ms": statistics.median(self.later_ms[label]) if self.later_ms.get(label) else None}
                for label, first in self.first_s.items()}


def _label(target: Any, chain: list[tuple[str, int, str]]) -> str:
    """`Net (model.py:12)`: a module by its class, a function by its name; where its own code is."""
    import torch

    function = getattr(target, "__func__", target)
    name = type(target).__qualname__ if isinstance(target, torch.nn.Module) else \
        getattr(function, "__qualname__", type(target).__qualname__)
    where = f" ({os.path.basename(chain[-1][0])}:{chain[-1][1]})" if chain else ""
    return f"{name}{where}"


class CompileHook:
    """Replaces torch.compile: notes each target; under --ladder, compiles it as the stage says
    and times it."""

    def __init__(self, stage: str | None) -> None:
        self.stage = stage
        self.chains: list[list[tuple[str, int, str]]] = []
        self.places: dict[str, tuple[str, int]] = {}  # label -> the compiled function's own code
        self.times = CallTimes()
        self.original: Callable[..., Any] | None = None
        self.original_optimize: Callable[..., Any] | None = None
        self.inside = threading.local()  # in our own compile: torch.compile's optimize() passes through

    def install(self) -> None:
        import torch
        import torch._dynamo

        self.original = torch.compile
        torch.compile = self.compile  # type: ignore[assignment]
        self.original_optimize = torch._dynamo.optimize
        torch._dynamo.optimize = self.optimize  # type: ignore[assignment]

    def compile(self, model: Any = None, **options: Any) -> Any:
        if model is None:  # @torch.compile(mode=...): the decorator
            return lambda target: self.compile(target, **options)
        from .places import wrapper_chain

        assert self.original is not None
        chain = wrapper_chain(model)
        self.chains.append(chain)
        self.inside.depth = getattr(self.inside, "depth", 0) + 1
        try:
            if self.stage is None:
                return self.original(model, **options)
            forced = forced_options(options, self.stage)
            compiled = self.original(model, **forced) if forced is not None else eager(model)
        finally:
            self.inside.depth -= 1
        label = _label(model, chain)
        if chain:
            self.places[label] = chain[-1][:2]
        return self.timed(compiled, label)

    def optimize(self, *args: Any, **kwargs: Any) -> Any:
        """`torch._dynamo.optimize(backend, nopython=, dynamic=, disable=)`: its decorator compiles
        as `torch.compile` with the same fullgraph, dynamic and disable would."""
        assert self.original_optimize is not None
        context = self.original_optimize(*args, **kwargs)
        if getattr(self.inside, "depth", 0):
            return context
        names = {"nopython": "fullgraph", "dynamic": "dynamic", "disable": "disable"}
        return ForcedOptimize(self, context, {names[k]: v for k, v in kwargs.items() if k in names})

    def every_call(self, by_function: dict[str, int], reasons: dict[str, str] | None = None) -> dict[str, Any] | None:
        """A runtime event when a graph of the CUDA graph trees recorded or ran eagerly on (nearly)
        every call instead of replaying: charged to the compiled callable called most."""
        from .capture import every_call, every_call_reason

        calls = {label: summary["calls"] for label, summary in self.times.summary().items()}
        total = sum(calls.values())
        worst = every_call(by_function, total, at_least=5) if self.stage == "cudagraphs" else None
        if worst is None:
            return None
        label = max(calls, key=lambda name: calls[name])
        filename, lineno = self.places.get(label, ("", 0))
        reason = every_call_reason(worst[0], worst[1], f"its {total} calls", by_function, (reasons or {}).get(worst[0], ""))
        return {"kind": "cudagraph_skip", "stage": self.stage, "effect": "every-call", "filename": filename,
                "lineno": lineno, "function_level": True, "message": "", "reason": reason}

    def timed(self, compiled: Any, label: str) -> Any:
        import torch

        if isinstance(compiled, torch.nn.Module):
            return timed_module(compiled, self.times.wrap(type(compiled).__call__, label))
        return self.times.wrap(compiled, label)


def timed_module(compiled: Any, call: Callable[..., Any]) -> Any:
    """The OptimizedModule itself, its class swapped for a subclass whose `__call__` is `call`:
    the whole call is timed, as the program makes it. Timing its `forward` instead left out
    OptimizedModule.__call__ and nn.Module's dispatch (the decode loop under CUDA graphs, on the
    GPU machine: the ladder 10 % under the program's own events around the same calls)."""
    base = type(compiled)
    compiled.__class__ = type(base.__name__, (base,), {"__call__": call, "__module__": base.__module__,
                                                       "__qualname__": base.__qualname__})
    return compiled


class ForcedOptimize:
    """What the hooked `torch._dynamo.optimize(...)` returns: as a decorator it goes through the
    hook's compile; anything else (a context manager) is torch's own context's."""

    def __init__(self, hook: CompileHook, context: Any, options: dict[str, Any]) -> None:
        self.hook, self.context, self.options = hook, context, options

    def __call__(self, target: Any) -> Any:
        if self.hook.stage is None:  # observe mode: torch's own, the backend the user chose
            from .places import wrapper_chain

            self.hook.chains.append(wrapper_chain(target))
            return self.context(target)
        return self.hook.compile(target, **self.options)

    def __enter__(self) -> Any:
        return self.context.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self.context.__exit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.context, name)


def eager(model: Any) -> Any:
    """The eager stage's stand-in for a compiled callable: the same wrapper type, no Dynamo."""
    import torch
    from torch._dynamo.eval_frame import DisableContext, OptimizedModule

    if isinstance(model, torch.nn.Module):
        return OptimizedModule(model, DisableContext())

    @functools.wraps(model)
    def run(*args: Any, **kwargs: Any) -> Any:
        return model(*args, **kwargs)

    run._torchdynamo_orig_callable = model  # type: ignore[attr-defined]
    return run


def start() -> None:
    """Called by the sitecustomize: does nothing where breaklint did not start the process or
    the process has no torch."""
    out_dir = os.environ.get(OUT_VARIABLE)
    if not out_dir:
        return
    try:
        import torch  # noqa: F401  (the command's own torch)

        from .capture import capture_dynamo
        from .worker import compiled_frames, events_of
    except Exception:
        return  # no torch in this process: nothing to observe
    stage = os.environ.get(STAGE_VARIABLE) or None
    hook = CompileHook(stage)
    hook.install()
    manager = capture_dynamo()
    capture = manager.__enter__()
    started = time.perf_counter()

    def dump() -> None:
        from .places import charge

        manager.__exit__(None, None, None)
        events = events_of(stage or "observed", capture)
        for event in events:
            place = (os.path.abspath(event.get("filename") or ""), int(event.get("lineno") or 0))
            user = charge(place, hook.chains) if event["kind"] == "recompile" else None
            if user is not None:
                event.update(filename=user[0], lineno=user[1], function=user[2], via=f"{place[0]}:{place[1]}")
        rerecorded = hook.every_call(capture.cudagraph_unreplayed_by_function, capture.cudagraph_rerecord_reasons)
        if rerecorded is not None:
            events.append(rerecorded)
        data = {"events": events, "frames": compiled_frames(), "stage": stage,
                "callables": hook.times.summary() if stage else {},
                "graphs": capture.graphs_compiled, "cudagraph_unreplayed": capture.cudagraph_unreplayed,
                "cudagraph_unreplayed_by_function": capture.cudagraph_unreplayed_by_function,
                "cuda": torch.cuda.is_available(), "seconds": time.perf_counter() - started,
                # under torchrun (or `confirm --nproc`): which rank this process was
                "rank": os.environ.get("RANK"), "world_size": os.environ.get("WORLD_SIZE")}
        path = os.path.join(out_dir, f"events-{os.getpid()}.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(data, handle)

    atexit.register(dump)
