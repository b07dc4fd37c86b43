"""Hypothesis profiles for the fuzz tests (test_fuzz.py).

CI runs a bounded, derandomized number of examples (profile `ci`, the default). A long run, which
keeps what it finds in $BREAKLINT_FUZZ_DB (default: breaklint-hypothesis/ in the temp folder),
never in the repository:

    BREAKLINT_FUZZ=long python -m pytest tests/robustness/test_fuzz.py -p no:logging
    BREAKLINT_FUZZ=long BREAKLINT_FUZZ_EXAMPLES=20000 python -m pytest tests/robustness/test_fuzz.py -p no:logging -x

A crash found this way goes into tests/robustness/corpus/ (see its README), so CI replays it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

_SLOW_IS_FINE = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile("ci", max_examples=20, deadline=None, derandomize=True, database=None,
                          suppress_health_check=_SLOW_IS_FINE, print_blob=True)
settings.register_profile(
    "long", max_examples=int(os.environ.get("BREAKLINT_FUZZ_EXAMPLES", "2000")), deadline=None,
    database=DirectoryBasedExampleDatabase(
        os.environ.get("BREAKLINT_FUZZ_DB", str(Path(tempfile.gettempdir()) / "breaklint-hypothesis"))),
    suppress_health_check=_SLOW_IS_FINE, print_blob=True,
)
settings.load_profile(os.environ.get("BREAKLINT_FUZZ", "ci"))
