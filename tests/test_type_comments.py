"""PEP 484 type comments (`# type: (Tensor, int) -> Tensor`) type a def's parameters as
annotations do: TorchScript-era code (torchvision's detection heads) types its helpers so."""

from __future__ import annotations

import pytest
from testdata import write_tree as project

HELPER = """
import torch

{header}
    {comment}
    return x * int(n)


@torch.compile
def entry(x, n):
    return {call}
"""


@pytest.mark.parametrize("header,comment,call,confidence", [
    ("def helper(x, n):", "# type: (Tensor, Tensor) -> Tensor", "helper(x, n)", "certain"),
    ("def helper(x, n):  # type: (Tensor, Tensor) -> Tensor", "", "helper(x, n)", "certain"),  # on the def line
    ("def helper(x, n):", "# type: (Tensor, int) -> Tensor", "helper(x, n)", None),  # an int: int() of an int
    ("def helper(x, n):", "# type: (...) -> Tensor", "helper(x, n)", "likely"),  # the return type only
    ("def helper(x, n):", "# type: (Tensor) -> Tensor", "helper(x, n)", "likely"),  # does not fit: not read
    ("def helper(x, n):", "# a comment, not a type", "helper(x, n)", "likely"),
    ("class Box:\n    def helper(self, x, n):", "    # type: (Tensor, int) -> Tensor", "Box().helper(x, n)", None),
    ("class Box:\n    def helper(self, x, n):", "    # type: (Tensor, Tensor) -> Tensor", "Box().helper(x, n)", "certain"),
])
def test_a_type_comment_types_the_parameters(tmp_path, check, header, comment, call, confidence) -> None:
    text = HELPER.format(header=header, comment=comment, call=call)
    if header.startswith("class"):
        text = text.replace("\n    return x * int(n)", "\n        return x * int(n)")
    root = project(tmp_path, {"m.py": text})
    found = [f.confidence.value for f in check([root], root=root).findings if f.code == "BL101"]
    assert found == ([confidence] if confidence else []), text
