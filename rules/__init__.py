"""The rule catalog: one rule a file, registered here explicitly and sorted by code."""

from __future__ import annotations

from breaklint.rule import Rule

from .data_dependent_branch import DataDependentBranch
from .decode_error import DecodeError
from .dynamic_shape_op import DynamicShapeOp
from .explicit_graph_break import ExplicitGraphBreak
from .internal_error import InternalError
from .mutated_python_state import MutatedPythonState
from .syntax_error import SyntaxErrorRule
from .tensor_to_scalar import TensorToScalar
from .unreadable_file import UnreadableFile
from .untraceable_numpy_call import UntraceableNumpyCall
from .unused_suppression import UnusedSuppression

ALL_RULES: tuple[type[Rule], ...] = (
    SyntaxErrorRule,  # BL001
    DecodeError,  # BL002
    UnreadableFile,  # BL003
    UnusedSuppression,  # BL004
    InternalError,  # BL005
    TensorToScalar,  # BL101
    DataDependentBranch,  # BL102
    UntraceableNumpyCall,  # BL103
    DynamicShapeOp,  # BL104
    ExplicitGraphBreak,  # BL105
    MutatedPythonState,  # BL201
)
