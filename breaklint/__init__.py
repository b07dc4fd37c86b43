"""breaklint: a linter for torch.compile that finds graph breaks and recompiles before anything runs."""

__version__ = "0.1.0"
