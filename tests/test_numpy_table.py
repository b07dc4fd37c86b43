"""BL103's table of untraceable NumPy functions agrees with the installed torch."""

from __future__ import annotations

import pytest

from breaklint.rules.untraceable_numpy_call import UNTRACEABLE_NUMPY

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
