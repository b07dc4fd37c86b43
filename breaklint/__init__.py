"""breaklint: a linter for torch.compile that finds graph breaks and recompiles before anything runs."""

# First of all: under `python -m breaklint` the working directory leaves sys.path (safe_path.py).
from . import safe_path

if safe_path.run_by_dash_m():
    safe_path.drop_working_directory()

from .example import Example, example  # noqa: E402

__version__ = "0.1.0"
__all__ = ["Example", "example", "__version__"]
