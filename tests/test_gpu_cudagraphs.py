"""Ground truth for the CUDA-graph rules (BL5xx): needs a CUDA GPU, skipped cleanly without one.

Each `# expect: BL5xx` line in testdata/rules/BL5xx/bad.py must be where Inductor, under
mode="reduce-overhead", skips CUDA graphs; good.py must record CUDA graphs without a skip.
Run on an H200 by benchmarks/gpu/run_gpu.sh; its log is committed under benchmarks/results/gpu/.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

import pytest
from testdata import TESTDATA, expected_markers

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("CUDA-graph ground truth needs a CUDA GPU", allow_module_level=True)

from breaklint.confirm.capture import capture_dynamo  # noqa: E402

FILES = sorted(TESTDATA.glob("BL5*/*.py"))


def compiled_functions(path: Path) -> list[tuple[str, Any]]:
    spec = importlib.util.spec_from_file_location(f"bl5_{path.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return [(name, value) for name, value in vars(module).items() if hasattr(value, "_torchdynamo_orig_callable")]


def skips_in(path: Path) -> tuple[list[Any], set[int]]:
    """Every skip, and the lines it speaks for: its own, or (when Inductor names no user frame,
    as for a write through __setitem__) every line of the function it was compiling."""
    found, lines = [], set()
    for name, fn in compiled_functions(path):
        torch._dynamo.reset()
        with capture_dynamo() as capture:
            for _ in range(3):
                fn(torch.randn(8, 8, device="cuda"))
            torch.cuda.synchronize()
        print(f"{path.parent.name}/{path.name}::{name}: {[(s.reason, s.lineno) for s in capture.cudagraph_skips]}")
        found.extend(capture.cudagraph_skips)
        code = fn._torchdynamo_orig_callable.__code__
        for skip in capture.cudagraph_skips:
            if skip.lineno and Path(skip.filename) == path:
                lines.add(skip.lineno)
            elif not skip.lineno:
                source_lines = len(inspect.getsourcelines(code)[0])
                lines.update(range(code.co_firstlineno, code.co_firstlineno + source_lines))
    return found, lines


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_cudagraph_skips_at_marked_lines(path: Path) -> None:
    skips, lines = skips_in(path)
    marked = {line for line, code in expected_markers(path) if code.startswith("BL5")}
    if path.name == "good.py":
        assert skips == []
        return
    assert marked <= lines, f"marked {sorted(marked)}, Inductor skipped at {sorted(lines)}: {[s.reason for s in skips]}"
