from __future__ import annotations

from breaklint.finding import Stage

from .base import SECTIONS, Observed


class RuntimeRecompile(Observed):
    __doc__ = """## What it does
    Reports a recompile (a guard that failed) in a function where no static rule fired.

    ## Why is this bad?
    Each recompile costs a full compile; after `recompile_limit` (8) the function runs eagerly.

    ## How to fix
    Read the failed guard: a Python scalar argument (pass a tensor, or `dynamic=True`), a shape
    (`torch._dynamo.mark_dynamic`), a mutated attribute or global.
    """ + SECTIONS
    code = "BL290"
    name = "runtime-recompile"
    stage = Stage.GUARDS
