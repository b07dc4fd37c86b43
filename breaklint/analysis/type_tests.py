"""What Dynamo knows of an `isinstance` test on a tensor while it traces.

Dynamo answers `isinstance(x, str)` for a tensor `x` from the variable's type, as a constant, and
traces only the branch it takes: `if isinstance(arg, str) and os.path.exists(arg):` never reaches
the I/O for a tensor (kornia's `_is_valid_arg`, called from `forward`). So code that runs only when
such a test gives what it cannot give for a tensor is never traced for one. The tests are read
from the function's own code (an `if`/`elif`/`else` chain, the right operand of `and`/`or`, the
arms of a conditional expression); the value of the tested expression comes from the value pass.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import libcst as cst

# A tensor is an instance of these (a subclass such as nn.Parameter is not decided: a tensor may
# or may not be one).
TENSOR_TYPES = frozenset({"torch.Tensor"})
# A tensor is an instance of none of these.
PYTHON_TYPES = frozenset({
    "str", "bytes", "bytearray", "int", "float", "complex", "bool", "list", "tuple", "dict", "set",
    "frozenset", "range", "slice", "type", "numbers.Number", "numbers.Integral", "numbers.Real",
    "numbers.Complex", "numpy.ndarray", "numpy.generic", "numpy.number", "PIL.Image.Image",
    "pathlib.Path", "os.PathLike", "collections.abc.Mapping", "collections.abc.Sequence",
    "typing.Mapping", "typing.Sequence", "enum.Enum",
})


class TypeTest(NamedTuple):
    """`isinstance(subject, classinfo)` must give `holds` for the code to run."""

    subject: cst.BaseExpression
    classinfo: cst.BaseExpression
    holds: bool


def type_tests(test: cst.BaseExpression, holds: bool) -> list[TypeTest]:
    """The isinstance tests that must give a known answer for `test` to give `holds`: both sides
    of an `and` that holds (of an `or` that fails), through `not`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return type_tests(test.expression, not holds)
    if isinstance(test, cst.BooleanOperation):
        if isinstance(test.operator, cst.And) == holds:  # `a and b` held, `a or b` failed: each part did
            return type_tests(test.left, holds) + type_tests(test.right, holds)
        return []
    if (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
            and len(test.args) == 2 and not any(arg.star or arg.keyword for arg in test.args)):
        return [TypeTest(test.args[0].value, test.args[1].value, holds)]
    return []


def tensor_answer(classinfo: cst.BaseExpression, resolve: Callable[[cst.BaseExpression], str | None]) -> bool | None:
    """What `isinstance(tensor, classinfo)` gives: True for torch.Tensor (or a tuple holding it),
    False for Python and NumPy types only; None when a type is not known here."""
    parts = [element.value for element in classinfo.elements] if isinstance(classinfo, cst.Tuple) else [classinfo]
    names = [resolve(part) if isinstance(part, (cst.Name, cst.Attribute)) else None for part in parts]
    if any(name in TENSOR_TYPES for name in names):
        return True
    if names and all(name in PYTHON_TYPES for name in names):
        return False
    return None
