"""Tensor utilities that train.py compiles through its own compile helpers."""
from tinyops.ops import active_rows, centered, report
