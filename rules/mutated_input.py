from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import dotted, Rule

from ._cudagraphs import region_records_cudagraphs


def _parameter_names(node: cst.FunctionDef) -> set[str]:
    params = node.params
    return {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}


class MutatedInput(Rule):
    """## What it does
    Finds a compiled function that mutates one of its tensor inputs in place (`x.add_(1)`,
    `x.copy_(y)`, `x[i] = v`, `x += y` on an argument) where the region is compiled with
    `mode="reduce-overhead"` (CUDA graphs).

    ## Why is this bad?
    A CUDA graph replays fixed memory addresses; Inductor cannot prove that replaying a graph
    that writes into an input is safe, so it skips CUDA graphs for the whole graph and every
    kernel launch goes through the CPU again: most of what reduce-overhead buys is lost.

    ## How to fix
    Return a new tensor (`y = x + 1`) instead of writing into the argument, or clone the input
    first (`x = x.clone()`); keep in-place updates of state in buffers outside the compiled call.

    ## When it is fine
    Without CUDA graphs (the default mode), in-place input updates are traced without cost.

    ## Dynamo says
    Inductor logs `skipping cudagraphs due to mutated inputs (1 instances)` (artifact
    `cudagraphs` from torch 2.11, `perf_hints` before). Proven on an H200: testdata/rules/BL501.
    """

    code = "BL501"
    name = "mutated-input"
    stage = Stage.CUDAGRAPHS
    message = "in-place write to input `{name}` in {region} makes Inductor skip CUDA graphs (reduce-overhead)"
    help = "return a new tensor instead of writing into the argument, or clone it first"
    dynamo_says = {"cudagraph-skip": "`skipping cudagraphs due to mutated inputs (1 instances)`"}
    bad = (
        "import torch\n\n@torch.compile(mode='reduce-overhead')\ndef f(x):\n    x.add_(1)\n    return x * 2\n",
    )
    good = (
        "import torch\n\n@torch.compile(mode='reduce-overhead')\ndef f(x):\n    y = x + 1\n    return y * 2\n",
        "import torch\n\n@torch.compile\ndef f(x):\n    x.add_(1)\n    return x * 2\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value.endswith("_") and not func.attr.value.startswith("_"):
            self._check(func.value, node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._check(node.target, node, rebinds=True)  # `x += y` on a tensor writes in place

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Subscript):
                self._check(target.target.value, node)

    def _check(self, target: cst.BaseExpression, node: cst.CSTNode, rebinds: bool = False) -> None:
        fn = self.ctx.function
        region = self.ctx.region
        name = dotted(target)
        if fn is None or region is None or name is None or "." in name:
            return
        # Only the entry function's arguments are the graph's inputs.
        if region.path != (fn.qualname,) or name not in _parameter_names(fn.node):
            return
        if fn.assigns.get(name) and not rebinds:
            return  # rebound in the body: may no longer be the input
        if not region_records_cudagraphs(self.ctx) or not self.ctx.value(target).tensorish:
            return
        confidence = Confidence.CERTAIN if self.ctx.value(target).is_tensor else Confidence.LIKELY
        self.report(node, confidence=confidence, says="cudagraph-skip", name=name)
