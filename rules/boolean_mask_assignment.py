from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule

from ._cudagraphs import region_records_cudagraphs

# Reductions over the whole tensor give one element: `x[mask] = x.mean()` is a masked fill.
_FULL_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "amax", "amin", "prod", "norm", "median", "std", "var",
                              "nansum", "nanmean", "logsumexp"})


def _single_element(value: cst.BaseExpression) -> bool:
    """A value Inductor writes as a masked fill: a number, or a whole-tensor reduction."""
    if isinstance(value, (cst.Integer, cst.Float)):
        return True
    if isinstance(value, cst.UnaryOperation):
        return _single_element(value.expression)
    return (isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in _FULL_REDUCTIONS)


class BooleanMaskAssignment(Rule):
    """## What it does
    Finds an assignment of a tensor through a boolean mask, `x[mask] = values`, inside a region
    compiled with `mode="reduce-overhead"` (or `"max-autotune"`): a mask made by a comparison,
    `isnan`, `any(dim=...)`, `~m`, `a & b`... and a value that is a tensor, not a number.

    ## Why is this bad?
    Dynamo traces it (no graph break), but Inductor has no kernel for `index_put_` with a
    boolean index and several values: it falls back to ATen's `index_put_`, which turns the mask
    into indices (`nonzero`, a host synchronisation) and cannot be captured in a CUDA graph.
    With graph partitioning (the default in torch 2.11 and 2.13) the op is cut out and runs without
    CUDA graphs, splitting the graph; with `graph_partition=False` Inductor skips CUDA graphs for
    the whole graph.

    ## How to fix
    Select instead of writing: `x = torch.where(mask[:, None], values, x)` (broadcast the mask
    to `x`'s shape) is one fused kernel; `x.masked_fill(mask, v)` for one value.

    ## When it is fine
    A single value (`x[mask] = 0.0`, `x[mask] = x.mean()`) is lowered as a masked fill and is
    not reported; without CUDA graphs the fallback costs one ATen call.

    ## Dynamo says
    With graph partitioning, Inductor's `cudagraphs` log (DEBUG) names the op `reason=CUDAGraph-
    unsafe custom ops, ir=IndexPutFallback` (without a line: it is charged to the function);
    without it, `skipping cudagraphs due to index_put_ fallback with boolean indexing is not
    compatible with CUDA graphs` with the line (torch 2.10+). Proven on an H200 (torch 2.11):
    testdata/rules/BL504, benchmarks/results/gpu/.
    """

    code = "BL504"
    name = "boolean-mask-assignment"
    stage = Stage.CUDAGRAPHS
    message = ("`{target}[{mask}] = ...` of a tensor in {region} falls back to ATen `index_put_`, which CUDA graphs "
               "cannot capture: that op runs outside them and splits the graph (reduce-overhead)")
    help = "select instead of writing: torch.where(mask[:, None], values, x)"
    dynamo_says = {
        "cudagraph-partition": "`reason=CUDAGraph-unsafe custom ops, ir=IndexPutFallback` (graph partition)",
        "cudagraph-skip": "`skipping cudagraphs due to index_put_ fallback with boolean indexing is not compatible "
                          "with CUDA graphs` (graph_partition=False)",
    }
    torch_versions = ("2.10", None)
    bad = (
        "import torch\n\n@torch.compile(mode='reduce-overhead')\ndef f(x):\n    y = x * 2\n"
        "    y[y.sum(-1) > 0] = x.mean(0)\n    return y\n",
    )
    good = (
        "import torch\n\n@torch.compile(mode='reduce-overhead')\ndef f(x):\n    y = x * 2\n"
        "    y[y > 0] = 0.0\n    return y\n",
        "import torch\n\n@torch.compile(mode='reduce-overhead')\ndef f(x):\n    y = x * 2\n"
        "    return torch.where((y.sum(-1) > 0)[:, None], x.mean(0), y)\n",
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            subscript = target.target
            if not isinstance(subscript, cst.Subscript) or len(subscript.slice) != 1:
                continue
            index = subscript.slice[0].slice
            if not isinstance(index, cst.Index):
                continue
            mask = self.ctx.value(index.value)
            if not (mask.tensorish and mask.boolean) or _single_element(node.value):
                continue
            if not self._tensor_value(node.value) or not region_records_cudagraphs(self.ctx):
                continue
            code = cst.Module([]).code_for_node
            self.report(node, confidence=Confidence.LIKELY, says=("cudagraph-partition", "cudagraph-skip"),
                        target=code(subscript.value), mask=code(index.value))

    def _tensor_value(self, value: cst.BaseExpression) -> bool:
        """A tensor, or a computation on what may be one; a bare argument or attribute that may
        be a tensor may as well be a Python number (a masked fill): not reported."""
        found = self.ctx.value(value)
        if found.is_tensor:
            return True
        return found.tensorish and isinstance(value, (cst.Call, cst.BinaryOperation, cst.Subscript))
