"""Ground truth for the CUDA-graph rules (BL5xx): needs a CUDA GPU, skipped cleanly without one.

Each `# expect: BL5xx` line in testdata/rules/BL5xx/bad.py must be where Inductor, under
mode="reduce-overhead", skips CUDA graphs or keeps an op out of them (graph partitioning);
good.py must record CUDA graphs with neither. Every compiled function and compiled module of the
file runs (on `CALLS[name]`, moved to the GPU, or three 8x8 inputs), then every `scenario_*`
function (a loop that calls them, for what only a caller shows: BL505). An event that names no
line speaks for every line of the functions of the file that ran when it was logged.
Run on an H200 by benchmarks/gpu/run_gpu.sh; its log is committed under benchmarks/results/gpu/.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any, Callable

import pytest
from testdata import TESTDATA, expected_markers

pytestmark = pytest.mark.dynamo  # runs the real compiler (deselect with -m 'not dynamo')

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("CUDA-graph ground truth needs a CUDA GPU", allow_module_level=True)

from torch.utils._pytree import tree_map  # noqa: E402

from breaklint.confirm.capture import capture_dynamo  # noqa: E402

FILES = sorted(TESTDATA.glob("BL5*/*.py"))
DEVICE = "cuda"


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bl5_{path.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def compiled_callables(module: ModuleType) -> tuple[list[tuple[str, Any, CodeType]], dict[str, list[tuple[Any, ...]]]]:
    """(name, callable on the GPU, the code it compiles) for every compiled function and module."""
    found = []
    for name, value in vars(module).items():
        if isinstance(value, torch._dynamo.eval_frame.OptimizedModule):
            found.append((name, value.to(DEVICE), type(value._orig_mod).forward.__code__))
        elif hasattr(value, "_torchdynamo_orig_callable"):
            found.append((name, value, value._torchdynamo_orig_callable.__code__))
    return found, getattr(module, "CALLS", {})


def on_gpu(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tree_map(lambda a: a.to(DEVICE) if isinstance(a, torch.Tensor) else a, args)


def code_lines(code: CodeType) -> range:
    return range(code.co_firstlineno, code.co_firstlineno + len(inspect.getsourcelines(code)[0]))


def observe(path: Path, label: str, run: Callable[[], None], profiled: bool) -> tuple[list[Any], set[CodeType]]:
    """Run on a fresh Dynamo cache: the CUDA-graph events, and (if `profiled`) the code objects
    of this file that ran (a profile hook sees each call)."""
    torch._dynamo.reset()
    ran: set[CodeType] = set()

    def profile(frame: Any, event: str, _arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename == str(path):
            ran.add(frame.f_code)

    with capture_dynamo() as capture:
        sys.setprofile(profile if profiled else None)
        try:
            run()
            torch.cuda.synchronize()
        finally:
            sys.setprofile(None)
    print(f"{path.parent.name}/{path.name}::{label}: {[(s.effect, s.reason, s.lineno) for s in capture.cudagraph_skips]}")
    return capture.cudagraph_skips, ran


def skips_in(path: Path) -> tuple[list[Any], set[int]]:
    """Every skip, partitioned op or re-recording, and the lines it speaks for: its own, or
    (when Inductor names no user frame, as for a write through __setitem__) every line of the
    compiled function, and of the file's functions that a scenario ran."""
    module = load(path)
    found, lines = [], set()
    callables, calls = compiled_callables(module)
    runs: list[tuple[str, Callable[[], None], set[CodeType]]] = []
    for name, fn, code in callables:
        arguments = ([on_gpu(args) for args in calls.get(name, [])]
                     or [(torch.randn(8, 8, device=DEVICE),) for _ in range(3)])

        def call_each(fn: Any = fn, arguments: list[tuple[Any, ...]] = arguments) -> None:
            for args in arguments:
                torch.compiler.cudagraph_mark_step_begin()
                fn(*args)

        runs.append((name, call_each, {code}))
    for name, fn in vars(module).items():
        if name.startswith("scenario_") and callable(fn):
            runs.append((name, fn, set()))
    for label, run, codes in runs:
        skips, ran = observe(path, label, run, profiled=not codes)
        found.extend(skips)
        for skip in skips:
            if skip.lineno and Path(skip.filename) == path:
                lines.add(skip.lineno)
            elif not skip.lineno:
                for code in codes or ran:
                    lines.update(code_lines(code))
    return found, lines


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_cudagraph_skips_at_marked_lines(path: Path) -> None:
    skips, lines = skips_in(path)
    marked = {line for line, code in expected_markers(path) if code.startswith("BL5")}
    if path.name == "good.py":
        assert skips == []
        return
    assert marked <= lines, f"marked {sorted(marked)}, Inductor skipped at {sorted(lines)}: {[s.reason for s in skips]}"
