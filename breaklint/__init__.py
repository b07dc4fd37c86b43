"""breaklint: a linter for torch.compile that finds graph breaks and recompiles before anything runs."""

from .example import Example, example

__version__ = "0.1.0"
__all__ = ["Example", "example", "__version__"]
