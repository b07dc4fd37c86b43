"""index/source.py takes a function's positions and code from one code generation with a cheaper
copy of libcst's PositionProvider state (private API): they must equal MetadataWrapper's
positions and `Module.code`, for every node of every file of the examples and testdata."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from breaklint.index.source import _positions_and_code

ROOT = Path(__file__).resolve().parent.parent


def test_positions_and_code_are_libcsts() -> None:
    compared = 0
    for path in sorted([*(ROOT / "examples").rglob("*.py"), *(ROOT / "testdata").rglob("*.py")]):
        try:
            module = cst.parse_module(path.read_bytes())
        except cst.ParserSyntaxError:
            continue
        positions, code = _positions_and_code(module)
        assert code == module.code, path
        libcsts = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        assert positions == {id(node): ((r.start.line, r.start.column), (r.end.line, r.end.column))
                             for node, r in libcsts.items()}, path
        compared += 1
    assert compared > 100
