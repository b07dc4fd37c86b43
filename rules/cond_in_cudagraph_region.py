from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule

from ._cudagraphs import region_records_cudagraphs

# Where torch.cond lives: the public name and the higher-order op it re-exports.
COND_NAMES = frozenset({"torch.cond", "torch._higher_order_ops.cond", "torch._higher_order_ops.cond.cond"})


class CondInCudagraphRegion(Rule):
    """## What it does
    Finds `torch.cond(pred, true_fn, false_fn, operands)` inside a region compiled with
    `mode="reduce-overhead"` (or `"max-autotune"`).

    ## Why is this bad?
    `torch.cond` keeps a data-dependent branch in one graph (no graph break), but CUDA graphs
    replay one fixed sequence of kernels and cannot hold a branch chosen on the GPU. When the
    predicate or operands live on the GPU, Inductor's lowering of `torch.cond` disables CUDA
    graphs for the whole graph, graph partitioning or not (measured on torch 2.11; 2.13's
    lowering does the same): every kernel
    of the graph is launched from Python again, so reduce-overhead buys nothing for it.

    ## How to fix
    When both branches are cheap, compute both and select with `torch.where(pred, a, b)`: one
    graph, recorded whole. Otherwise move the branch out of the compiled function and compile
    each side on its own (each gets its CUDA graph), or compile this function without
    `mode="reduce-overhead"`.

    ## When it is fine
    Without CUDA graphs (the default mode), `torch.cond` is the right tool against a
    data-dependent branch (BL102).

    ## Dynamo says
    Inductor logs `skipping cudagraphs due to control flow operator: torch.cond. Found from :`
    with the line of the call. Proven on an H200 (torch 2.11): testdata/rules/BL503,
    benchmarks/results/gpu/.
    """

    code = "BL503"
    name = "cond-in-cudagraph-region"
    stage = Stage.CUDAGRAPHS
    message = "`torch.cond` in {region} makes Inductor skip CUDA graphs for the whole graph (reduce-overhead)"
    help = "select with torch.where(pred, a, b), or branch outside the compiled function"
    dynamo_says = {"cudagraph-skip": "`skipping cudagraphs due to control flow operator: torch.cond.`"}
    bad = (
        "import torch\n\n@torch.compile(mode='reduce-overhead')\ndef f(x):\n"
        "    return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t - 1, (x,))\n",
    )
    good = (
        "import torch\n\n@torch.compile(mode='reduce-overhead')\ndef f(x):\n"
        "    return torch.where(x.sum() > 0, x * 2, x - 1)\n",
        "import torch\n\n@torch.compile\ndef f(x):\n"
        "    return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t - 1, (x,))\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.resolve(node.func) in COND_NAMES and region_records_cudagraphs(self.ctx):
            self.report(node, confidence=Confidence.CERTAIN, says="cudagraph-skip")
