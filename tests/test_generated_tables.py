"""Data read from torch once and committed (breaklint must not import torch) is still current."""

from __future__ import annotations

import pytest

from breaklint.rules.untraceable_numpy_call import UNTRACEABLE_NUMPY
from testdata import HANG_GUARD_S

pytestmark = pytest.mark.dynamo  # runs the real compiler (deselect with -m 'not dynamo')

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")


def test_table_matches_dynamo_numpy_map() -> None:
    from torch._dynamo.variables.misc import get_np_to_tnp_map

    traceable = get_np_to_tnp_map()
    for name in UNTRACEABLE_NUMPY:
        function = getattr(np, name, None)
        if function is not None:  # a NumPy without it cannot call it
            assert function not in traceable, f"numpy.{name} is traceable now"
    for name in ("exp", "sum", "asarray", "where", "unique"):
        assert name not in UNTRACEABLE_NUMPY
        assert getattr(np, name) in traceable


def test_torch_api_table_is_current() -> None:
    """breaklint/analysis/torch_api.py is what tools/gen_torch_api.py makes from the installed torch."""
    import subprocess
    import sys

    from testdata import ROOT

    generated = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_torch_api.py")],
                               capture_output=True, text=True, timeout=HANG_GUARD_S, check=True).stdout
    assert generated == (ROOT / "breaklint" / "analysis" / "torch_api.py").read_text(encoding="utf-8")


def test_dynamo_tables_are_current() -> None:
    """breaklint/analysis/dynamo_tables.py is what tools/gen_dynamo_tables.py makes from the installed torch."""
    import os
    import subprocess
    import sys

    from testdata import ROOT

    generated = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_dynamo_tables.py")],
                               capture_output=True, text=True, timeout=HANG_GUARD_S, check=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
    assert generated == (ROOT / "breaklint" / "analysis" / "dynamo_tables.py").read_text(encoding="utf-8")


def test_dynamo_tables_hold_what_the_rules_rely_on() -> None:
    """The generated facts the rules consult, checked against Dynamo's own predicates."""
    import time

    from torch._dynamo import trace_rules
    from torch._dynamo.variables import SkipFunctionVariable

    from breaklint.analysis import dynamo_tables

    assert "time.perf_counter" in dynamo_tables.SKIPPED_C_FUNCTIONS
    assert trace_rules.lookup(time.perf_counter) is SkipFunctionVariable
    assert "sys.exc_info" not in dynamo_tables.SKIPPED_C_FUNCTIONS  # VariableBuilder models it
    assert {"unittest", "random", "pandas"} <= dynamo_tables.SKIPPED_MODULES
    assert "builtins.sum" in dynamo_tables.POLYFILLED
    assert dynamo_tables.GB_TYPES["GB0007"] == "Attempted to call function marked as skipped"
    assert dynamo_tables.TORCH_C_QUERIES_THAT_BREAK["torch._C._get_cudnn_enabled"] == "GB0208"
