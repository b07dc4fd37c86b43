from __future__ import annotations

from breaklint.finding import Stage

from .base import SECTIONS, Observed


class RuntimeInductorIssue(Observed):
    __doc__ = """## What it does
    Reports an Inductor compile error, or ATen ops that Inductor left as fallbacks (no generated
    kernel) for this target.

    ## Why is this bad?
    A fallback runs the eager ATen kernel between generated ones: no fusion across it.

    ## How to fix
    Use an op Inductor lowers, or accept the fallback when it is a library kernel anyway.
    """ + SECTIONS
    code = "BL490"
    name = "runtime-inductor-issue"
    stage = Stage.INDUCTOR
