"""What the CUDA-graph rules share: is this region compiled with CUDA graphs?"""

from __future__ import annotations

import re

import libcst as cst

from breaklint.rule import compile_mode, CUDAGRAPH_MODES, dotted, FileContext

__all__ = ["cudagraph_names", "dotted", "records_cudagraphs", "region_records_cudagraphs"]

_MODE = re.compile(r"""\bmode\s*=\s*(["'])([\w-]+)\1""")


def cudagraph_names(ctx: FileContext, modules_only: bool) -> set[str]:
    """The names this file binds to a callable compiled with CUDA graphs (`model =
    torch.compile(net, mode="reduce-overhead")`, `net.compile(mode=...)`, `@torch.compile(mode=...)
    def f`): the index's compiled names (`ctx.guard_facts`), one fact for every rule that asks.
    `modules_only`: not a def or a lambda of this file (a function has no parameters to require grad)."""
    defs = {fn.name for fn in ctx.functions_by_node.values()}
    found = set()
    for name in ctx.guard_facts.names:
        mode = _MODE.search(name.options)
        if mode is None or mode.group(2) not in CUDAGRAPH_MODES:
            continue
        if modules_only and (name.target.startswith("lambda") or name.target in defs):
            continue
        found.add(name.name)
    return found


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
