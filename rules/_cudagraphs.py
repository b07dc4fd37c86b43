"""What the CUDA-graph rules share: is this region compiled with CUDA graphs?"""

from __future__ import annotations

import libcst as cst

from breaklint.index.imports import dotted
from breaklint.index.patterns import CUDAGRAPH_MODES, compile_mode
from breaklint.rule import FileContext

__all__ = ["dotted", "records_cudagraphs", "region_records_cudagraphs"]


def records_cudagraphs(node: cst.CSTNode) -> bool:
    """A `torch.compile(...)` call, decorator or `.compile(...)` with a CUDA-graph mode."""
    return compile_mode(node) in CUDAGRAPH_MODES



def region_records_cudagraphs(ctx: FileContext) -> bool:
    """True when the region's compile site asks for mode="reduce-overhead" (or "max-autotune"):
    CUDA-graph rules only speak where CUDA graphs are recorded."""
    region = ctx.region
    if region is None:
        return False
    for site in ctx.project.compile_sites_at(region.site):
        return compile_mode(site.node) in CUDAGRAPH_MODES
    return False
