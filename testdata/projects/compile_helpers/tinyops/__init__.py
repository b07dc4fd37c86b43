"""Tensor utilities compiled through compile helpers: train.py's own, and steps.py's."""
from tinyops.ops import active_rows, centered, report
from tinyops.steps import as_list, distinct, eager_total, rounded, shifted, total
