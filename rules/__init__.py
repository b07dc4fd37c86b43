"""The rule catalog: one rule a file, registered here explicitly and sorted by code."""

from __future__ import annotations

from breaklint.rule import Rule

from .decode_error import DecodeError
from .internal_error import InternalError
from .syntax_error import SyntaxErrorRule
from .tensor_to_scalar import TensorToScalar
from .unreadable_file import UnreadableFile
from .unused_suppression import UnusedSuppression

ALL_RULES: tuple[type[Rule], ...] = (
    SyntaxErrorRule,
    DecodeError,
    UnreadableFile,
    UnusedSuppression,
    InternalError,
    TensorToScalar,
)
