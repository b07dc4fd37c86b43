from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import method_call, Rule

from ._cudagraphs import region_records_cudagraphs


def _is_cpu(expr: cst.BaseExpression) -> bool:
    """`"cpu"` or `torch.device("cpu")` (spelled any way that ends in `device("cpu")`)."""
    if isinstance(expr, cst.SimpleString):
        return expr.evaluated_value == "cpu"
    if isinstance(expr, cst.Call) and expr.args:
        func = expr.func
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        return name == "device" and _is_cpu(expr.args[0].value)
    return False


def _to_cpu(node: cst.Call) -> bool:
    """`t.to("cpu")`, `t.to(device="cpu")`, `t.to(torch.device("cpu"), ...)`."""
    for index, arg in enumerate(node.args):
        if (arg.keyword is None and index == 0) or (arg.keyword is not None and arg.keyword.value == "device"):
            if _is_cpu(arg.value):
                return True
    return False


class CpuTensorInRegion(Rule):
    """## What it does
    Finds a tensor copied to the CPU inside a region compiled with `mode="reduce-overhead"` (or
    `"max-autotune"`): `t.cpu()`, `t.to("cpu")`, `t.to(device="cpu")`.

    ## Why is this bad?
    A CUDA graph records GPU work only. With graph partitioning (Inductor's default in torch 2.11
    and 2.13) the copy, and every op that then runs on the CPU, is cut out into a partition that runs
    without CUDA graphs: the graph is split in two or more CUDA graphs with Python launches and
    a device-to-host synchronisation between them. With `graph_partition=False` (and before
    partitioning existed) Inductor skips CUDA graphs for the whole graph.

    ## How to fix
    Keep the work on the GPU and return the GPU tensor; move it to the CPU after the compiled
    call (`model(x).cpu()` in the caller), where the copy costs the same and the graph stays
    whole. Compute statistics with tensor ops on the input's device instead of on the host.

    ## When it is fine
    Without CUDA graphs (the default mode). Factories without `device=` such as
    `torch.arange(n)` or `torch.tensor([...])` are not reported: when they only feed CUDA ops,
    Inductor moves them onto the GPU (measured on an H200, torch 2.11).

    ## Dynamo says
    With graph partitioning, Inductor's `cudagraphs` log (DEBUG) says `Created 2 graph
    partitions: 1 cudagraphable, 1 non-cudagraphable` and names the op, `op1: reason=cpu ops,
    ir=DeviceCopy, fx=prims.device_put.default(mul, cpu)`, with its line; without it, `skipping
    cudagraphs due to cpu device (device_put)`. Proven on an H200 (torch 2.11):
    testdata/rules/BL502, benchmarks/results/gpu/.
    """

    code = "BL502"
    name = "cpu-tensor-in-region"
    stage = Stage.CUDAGRAPHS
    message = "{what} in {region} copies a tensor to the CPU: that op runs outside CUDA graphs and splits the graph (reduce-overhead)"
    help = "keep the work on the GPU and move the result to the CPU after the compiled call"
    dynamo_says = {
        "cudagraph-partition": "`reason=cpu ops, ir=DeviceCopy` (graph partition)",
        "cudagraph-skip": "`skipping cudagraphs due to cpu device (device_put)` (graph_partition=False)",
    }
    bad = (
        "import torch\n\n@torch.compile(mode='reduce-overhead')\ndef f(x):\n    return (x * 2).cpu()\n",
        "import torch\n\n@torch.compile(mode='reduce-overhead')\ndef f(x):\n    return x.sum(0).to('cpu')\n",
    )
    good = (
        "import torch\n\n@torch.compile(mode='reduce-overhead')\ndef f(x):\n    return x * 2\n\n"
        "def predict(x):\n    return f(x).cpu()\n",
        "import torch\n\n@torch.compile\ndef f(x):\n    return (x * 2).cpu()\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        receiver = method_call(node, {"cpu"})
        what = "`.cpu()`"
        if receiver is None:
            receiver = method_call(node, {"to"})
            what = "`.to(\"cpu\")`"
            if receiver is not None and not _to_cpu(node):
                return
        if receiver is None or not region_records_cudagraphs(self.ctx):
            return
        value = self.ctx.value(receiver)
        if not value.tensorish:
            return
        confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
        self.report(node, confidence=confidence, says=("cudagraph-partition", "cudagraph-skip"), what=what)
