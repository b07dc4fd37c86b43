from __future__ import annotations

from breaklint.finding import Stage

from .base import SECTIONS, Observed


class RuntimeCudagraphSkip(Observed):
    __doc__ = """## What it does
    Reports that Inductor skipped CUDA graphs (`mode="reduce-overhead"`) for a graph, with the
    reason it logged, where no static rule predicted it.

    ## Why is this bad?
    Without CUDA graphs each kernel launch goes through the CPU again: small models lose most of
    what reduce-overhead buys.

    ## How to fix
    The reason names the cause: mutated inputs (clone them), CPU tensors (create on the device),
    dynamic shapes (pad or mark static), incompatible ops.
    """ + SECTIONS
    code = "BL590"
    name = "runtime-cudagraph-skip"
    stage = Stage.CUDAGRAPHS
