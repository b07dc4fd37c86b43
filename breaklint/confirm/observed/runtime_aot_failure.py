from __future__ import annotations

from breaklint.finding import Stage

from .base import SECTIONS, Observed


class RuntimeAotFailure(Observed):
    __doc__ = """## What it does
    Reports an error raised by AOTAutograd (the `aot_eager` stage) for this target.

    ## Why is this bad?
    The forward/backward graphs cannot be built: the stages after it get nothing.

    ## How to fix
    Read the quoted error; it usually names the op or the mutation AOTAutograd refused.
    """ + SECTIONS
    code = "BL390"
    name = "runtime-aot-failure"
    stage = Stage.AOT_AUTOGRAD
