from __future__ import annotations

from breaklint.finding import Stage

from .base import SECTIONS, Observed


class RuntimeGraphBreak(Observed):
    __doc__ = """## What it does
    Reports a graph break that Dynamo logged at a line where no static rule fired.

    ## Why is this bad?
    The frame splits: Python runs between graphs and the compiler cannot fuse across the break.

    ## How to fix
    Follow the hint in Dynamo's message (quoted), or see the rule for that pattern.
    """ + SECTIONS
    code = "BL190"
    name = "runtime-graph-break"
    stage = Stage.DYNAMO
