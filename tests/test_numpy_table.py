"""The NumPy tables (BL103's untraceable functions, numpy_api's constant calls) against the
installed torch: Dynamo traces exactly the functions torch._numpy has (get_np_to_tnp_map)."""

from __future__ import annotations

import types

import pytest

np = pytest.importorskip("numpy")
misc = pytest.importorskip("torch._dynamo.variables.misc")

from breaklint.analysis.numpy_api import CONSTANT_CALLS, SCALAR_DRAWS  # noqa: E402
from rules.untraceable_numpy_call import UNTRACEABLE_NUMPY, UNTRACEABLE_NUMPY_RANDOM  # noqa: E402


def _functions(module: types.ModuleType) -> dict[str, object]:
    found = {}
    for name in dir(module):
        value = getattr(module, name)
        if not name.startswith("_") and callable(value) and not isinstance(value, type):
            found[name] = value
    return found


def test_top_level_table_matches_torch() -> None:
    traced = misc.get_np_to_tnp_map()
    missing = {n for n, f in _functions(np).items() if not isinstance(f, np.ufunc) and f not in traced}
    missing |= {n for n, f in _functions(np).items() if isinstance(f, np.ufunc) and f not in traced}
    assert missing == UNTRACEABLE_NUMPY


def test_random_table_matches_torch() -> None:
    traced = misc.get_np_to_tnp_map()
    missing = {n for n, f in _functions(np.random).items() if f not in traced}
    assert missing == UNTRACEABLE_NUMPY_RANDOM
    # The draws BL107 and values.py know are the ones torch._numpy.random has.
    assert all(getattr(np.random, name) in traced for name in SCALAR_DRAWS)


def test_constant_calls_are_what_dynamo_folds() -> None:
    collections = {fn.__name__ for fn in misc.np_constant_collections_map}
    folded = {fn.__name__ for fn in misc.NumpyVariable.constant_fold_functions}
    assert CONSTANT_CALLS - {"random.seed"} == collections | folded
