"""Run rule testdata through the real compiler in a clean interpreter and print what it did as JSON.

A separate process keeps pytest's own patches (its `pdb.set_trace`, its stdin) and Dynamo's
caches out of the experiment. Every compiled callable a module creates is called three times
with fresh `torch.randn(8, 8)` (or with the argument lists in the module's `CALLS` dict; an empty
list: only its `scenario_*` functions call it).

A module picks the stage it is judged at with a top-level `BACKEND = "eager" | "aot_eager" |
"inductor"` (default "eager": graph breaks and guards are Dynamo's own, no backend is needed to
see them). Under Inductor the runner also records every op lowered to a `FallbackKernel` (an
ATen call instead of generated code), with the user line the FX node came from.

Module-level functions named `scenario_*` are run too, each on a fresh Dynamo cache: they hold
call-site patterns (a compiled model called under `torch.no_grad()` and then with grad) whose
recompiles belong to the scenario's lines rather than to the compiled function.

A module that runs collectives or wraps a model in DDP declares `PROCESS_GROUP = "gloo"`: the
runner starts a world-size-1 gloo group (in this process, a FileStore in a temporary directory)
before importing it, keeps `torch.compile` forced to its backend for its scenarios too, and
records how many graphs the backend was handed per case (`subgraphs`: DDPOptimizer's split at
DDP's bucket boundaries hands it one graph per bucket).

A directory is a multi-file project (see `run_project`): its `train.py` runs its own `main()`.

    python tests/ground_truth_runner.py OUT.json FILE.py|PROJECT_DIR [...]

The result goes to a file: pdb and user code may print to stdout.
"""

from __future__ import annotations

import ast
import bdb
import dataclasses
import importlib.util
import json
import logging
import os
import re
import sys
import tempfile
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Iterator

import torch
import torch._functorch.config
import torch._inductor.config

from breaklint.confirm.capture import capture_dynamo

DEFAULT_CALLS = 3
BACKENDS = ("eager", "aot_eager", "inductor")
PROCESS_GROUPS = ("gloo",)
_FALLBACK = re.compile(r"Using FallbackKernel: (?P<op>\S+)")
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep


def _declared(path: Path, name: str, allowed: tuple[str, ...], default: str | None) -> str | None:
    """The module's top-level `NAME = "..."`, read without running it (it decides how to import)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            value = ast.literal_eval(node.value)
            if value not in allowed:
                raise ValueError(f"{path}: {name} must be one of {allowed}, not {value!r}")
            return value
    return default


def declared_backend(path: Path) -> str:
    return _declared(path, "BACKEND", BACKENDS, "eager") or "eager"


def ensure_process_group(kind: str) -> None:
    """A world-size-1 process group of `kind` for the rest of this process (started once)."""
    import torch.distributed as dist

    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(prefix="breaklint-pg-"), "store"), 1)
        dist.init_process_group(kind, store=store, rank=0, world_size=1)


def counting(backend: str, graphs: list[int]) -> Any:
    """`backend`, noting each graph it is handed (its node count) in `graphs`."""
    from torch._dynamo import lookup_backend

    compile_graph = lookup_backend(backend)

    def counted(gm: Any, example_inputs: Any, **kwargs: Any) -> Any:
        graphs.append(len(gm.graph.nodes))
        return compile_graph(gm, example_inputs, **kwargs)

    return counted


@contextmanager
def compile_forced_to(backend: Any) -> Iterator[list[Any]]:
    """Within the block, torch.compile ignores `mode` and uses `backend` (a name or a compiler
    function); yields what it compiled."""
    real_compile = torch.compile
    compiled: list[Any] = []

    def remember(obj: Any) -> Any:
        compiled.append(obj)
        return obj

    def forced_compile(model: Any = None, **options: Any) -> Any:
        options.pop("mode", None)
        options["backend"] = backend
        if model is None:  # @torch.compile(...) used as a decorator factory
            return lambda fn: remember(real_compile(fn, **options))
        return remember(real_compile(model, **options))

    torch.compile = forced_compile  # type: ignore[assignment]
    try:
        yield compiled
    finally:
        torch.compile = real_compile  # type: ignore[assignment]


def load_compiled(path: Path, backend: str) -> tuple[Any, list[Any]]:
    """Import the module with torch.compile forced to `backend`; return what it compiled."""
    with compile_forced_to(backend) as compiled:
        name = f"breaklint_testdata_{path.parent.name}_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module, compiled


def _user_frame(stack_trace: str) -> tuple[str, int] | None:
    """The innermost frame outside torch in an FX node's `stack_trace`."""
    frames = [(m["file"], int(m["line"])) for m in _FRAME.finditer(stack_trace)]
    user = [f for f in frames if not os.path.realpath(f[0]).startswith(_TORCH_DIR)]
    return user[-1] if user else None


class _FallbackSink(logging.Filter):
    """Inductor logs `Using FallbackKernel: <op>` (perf_hints) while it lowers the FX node that
    became the fallback; that node's stack trace says which user line asked for it."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[dict[str, Any]] = []

    def filter(self, record: logging.LogRecord) -> bool:
        match = _FALLBACK.match(record.getMessage())
        if match:
            from torch._inductor.virtualized import V

            node = getattr(V.graph, "current_node", None)
            where = _user_frame(node.meta.get("stack_trace") or "") if node is not None else None
            filename, lineno = where or ("", 0)
            self.events.append({"op": match["op"], "filename": os.path.abspath(filename) if filename else "",
                                "lineno": lineno})
        return True  # pass it on: capture_dynamo listens on perf_hints too (cudagraph skips)


@contextmanager
def capture_inductor_fallbacks() -> Iterator[_FallbackSink]:
    from torch._logging import _internal

    import torch._inductor.graph  # noqa: F401  (registers the perf_hints artifact logger)

    sink = _FallbackSink()
    logger = logging.getLogger("torch._inductor.graph.__perf_hints")
    level = logger.level
    added = "perf_hints" not in _internal.log_state.artifact_names
    _internal.log_state.artifact_names.add("perf_hints")
    logger.setLevel(logging.DEBUG)
    logger.filters.insert(0, sink)  # before any filter that swallows the record
    try:
        yield sink
    finally:
        logger.removeFilter(sink)
        logger.setLevel(level)
        if added:
            _internal.log_state.artifact_names.discard("perf_hints")


def observe(calls: list[Any], backend: str, graphs: list[int] | None = None) -> dict[str, Any]:
    """Run the thunks on a fresh Dynamo cache and record what the compiler did (and, given the
    counting backend's list, how many graphs it was handed meanwhile)."""
    torch._dynamo.reset()
    before = len(graphs) if graphs is not None else 0
    errors: list[str] = []
    with capture_dynamo() as capture, capture_inductor_fallbacks() as fallbacks:
        for call in calls:
            try:
                call()
            except bdb.BdbQuit:  # pdb.set_trace() ran eagerly after the break and read EOF
                pass
            except Exception as error:  # a failed stage, or a crash inside Dynamo (2.11 asserts
                # on `datetime.now()`): evidence for this case, never the end of the whole run
                errors.append(f"{type(error).__name__}: {(str(error).splitlines() or [''])[0]}")
    return {
        "backend": backend,
        "subgraphs": len(graphs) - before if graphs is not None else None,
        "graph_breaks": [dataclasses.asdict(b) for b in capture.graph_breaks],
        "recompiles": [dataclasses.asdict(r) for r in capture.recompiles],
        "fallbacks": fallbacks.events,
        "errors": errors,
    }


def _wraps(value: Any, compiled: Any) -> bool:
    """`value` is `compiled` or a functools.wraps wrapper around it."""
    for _ in range(8):
        if value is compiled:
            return True
        value = getattr(value, "__wrapped__", None)
        if value is None:
            return False
    return False


def run_file(path: Path) -> dict[str, Any]:
    group = _declared(path, "PROCESS_GROUP", PROCESS_GROUPS, None)
    if group is None:
        return _run_file(path, declared_backend(path), None)
    ensure_process_group(group)
    graphs: list[int] = []
    with ExitStack() as stack:
        # Held for the whole file (its scenarios compile too); load_compiled's own forcing then
        # calls this one, whose counting backend has the last word.
        stack.enter_context(compile_forced_to(counting(declared_backend(path), graphs)))  # type: ignore[arg-type]
        return _run_file(path, declared_backend(path), graphs)


def _run_file(path: Path, backend: str, graphs: list[int] | None) -> dict[str, Any]:
    module, compiled = load_compiled(path, backend)
    argument_lists: dict[str, list[tuple[Any, ...]]] = getattr(module, "CALLS", {})
    cases: dict[str, Any] = {}
    for obj in compiled:
        # Call what the module exposes: a decorator above @torch.compile (e.g.
        # `@torch._dynamo.config.patch(...)`) wraps the compiled function and must run around it.
        name, exposed = next(((n, v) for n, v in list(vars(module).items()) if _wraps(v, obj)), (repr(obj), obj))
        # An empty list: not called on its own (its scenario_* functions call it).
        arguments = argument_lists[name] if name in argument_lists else [(torch.randn(8, 8),) for _ in range(DEFAULT_CALLS)]
        cases[name] = observe([lambda fn=exposed, args=args: fn(*args) for args in arguments], backend, graphs)
    for name, fn in list(vars(module).items()):
        if name.startswith("scenario_") and callable(fn) and getattr(fn, "__module__", None) == module.__name__:
            code = fn.__code__
            last = max((line for _, _, line in code.co_lines() if line is not None), default=code.co_firstlineno)
            case = observe([fn], backend, graphs)
            case["scenario_lines"] = [code.co_firstlineno, last]
            cases[name] = case
    return cases


PROJECT_ENTRY = "train"  # a project's script: `train.py` beside its package, with a `main()`


def run_project(directory: Path) -> dict[str, Any]:
    """A multi-file project (testdata/projects/NAME/): import its `train` module as a script
    would (the directory first on sys.path), then observe its `main()`, which compiles what it
    compiles and calls it. Its modules are dropped afterwards: every project has a `train`."""
    backend = declared_backend(directory / f"{PROJECT_ENTRY}.py")
    before = set(sys.modules)
    sys.path.insert(0, str(directory))
    try:
        with compile_forced_to(backend):
            module = importlib.import_module(PROJECT_ENTRY)
            case = observe([module.main], backend)
            # main() is the project's scenario: a recompile anywhere in the project belongs to its
            # lines (the call, `.eval()` or write that changes a guard sits in train.py).
            code = module.main.__code__
            case["scenario_lines"] = [code.co_firstlineno, max(
                (line for _, _, line in code.co_lines() if line is not None), default=code.co_firstlineno)]
            case["scenario_file"] = str(Path(code.co_filename).resolve())
    finally:
        sys.path.remove(str(directory))
        for name in set(sys.modules) - before:
            if str(getattr(sys.modules[name], "__file__", "") or "").startswith(str(directory) + os.sep):
                del sys.modules[name]
    return {"main": case}


def main(out: str, paths: list[str]) -> None:
    # A graph served from Inductor's FX-graph or AOTAutograd cache is not lowered again, so it
    # would log no fallbacks; the compiled-kernel cache may stay (it only saves C++ compile time).
    torch._inductor.config.fx_graph_cache = False
    torch._functorch.config.enable_autograd_cache = False
    sys.dont_write_bytecode = True  # no __pycache__ in testdata/projects
    result = {}
    for given in paths:
        path = Path(given).resolve()
        result[str(path)] = run_project(path) if path.is_dir() else run_file(path)
    Path(out).write_text(json.dumps(result), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
