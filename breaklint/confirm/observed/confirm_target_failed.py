from __future__ import annotations

from breaklint.finding import Severity, Stage

from .base import SECTIONS, Observed


class ConfirmTargetFailed(Observed):
    __doc__ = """## What it does
    Reports a confirm target that could not run through: the example raised, the process timed
    out, crashed or was killed (out of memory), or a stage's compiler raised.

    ## Why is this bad?
    Nothing is confirmed for the code it should have run.

    ## How to fix
    Read the quoted error; run the example on its own; raise `--timeout` for big models.
    """ + SECTIONS
    code = "BL006"
    name = "confirm-target-failed"
    stage = Stage.META
    severity = Severity.ERROR
