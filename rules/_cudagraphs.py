"""What the CUDA-graph rules share: is this region compiled with CUDA graphs?"""

from __future__ import annotations

from breaklint.patterns import CUDAGRAPH_MODES, compile_mode
from breaklint.rule import FileContext

from ._support import site_modules


def region_records_cudagraphs(ctx: FileContext) -> bool:
    """True when the region's compile site asks for mode="reduce-overhead" (or "max-autotune"):
    CUDA-graph rules only speak where CUDA graphs are recorded."""
    region = ctx.region
    if region is None:
        return False
    for module in site_modules(ctx, region.site):
        for site in module.compile_sites:
            if site.location == region.site:
                return compile_mode(site.node) in CUDAGRAPH_MODES
    return False
