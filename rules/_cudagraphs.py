"""What the CUDA-graph rules share: is this region compiled with CUDA graphs?"""

from __future__ import annotations

import libcst as cst

from breaklint.rule import compile_mode, CUDAGRAPH_MODES, dotted, FileContext

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
