from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.patterns import method_call
from breaklint.rule import Rule

from ._cudagraphs import region_records_cudagraphs

# Factories that allocate on the CPU unless told otherwise.
FACTORIES = frozenset(
    f"torch.{name}" for name in ("tensor", "as_tensor", "arange", "zeros", "ones", "empty", "full",
                                 "rand", "randn", "randint", "linspace", "eye")
)


class CpuTensorInRegion(Rule):
    """## What it does
    Finds tensors moved to or created on the CPU inside a region compiled with
    `mode="reduce-overhead"`: `t.cpu()`, `t.to("cpu")`, and factories such as `torch.arange(n)` or
    `torch.tensor([...])` without `device=`.

    ## Why is this bad?
    CUDA graphs capture GPU work only. A graph with CPU tensors in it is not recorded: Inductor
    skips CUDA graphs for it (or, with graph partitioning, splits it) and the launches go through
    the CPU again.

    ## How to fix
    Create tensors on the input's device (`torch.arange(n, device=x.device)`), keep values on the
    GPU, and move results to the CPU after the compiled call.

    ## When it is fine
    Without CUDA graphs, or in a model that runs on the CPU anyway.

    ## Dynamo says
    Inductor logs `skipping cudagraphs due to cpu device (...)`. Proven on an H200:
    testdata/rules/BL502.
    """

    code = "BL502"
    name = "cpu-tensor-in-region"
    stage = Stage.CUDAGRAPHS
    message = "{what} in {region} puts a CPU tensor in a CUDA-graph region: Inductor skips CUDA graphs"
    help = "create tensors on the input's device (device=x.device) and move results to the CPU after the call"
    dynamo_says = {"cudagraph-skip": "`skipping cudagraphs due to cpu device (...)`"}
    bad = (
        "import torch\n\n@torch.compile(mode='reduce-overhead')\ndef f(x):\n    return (x * 2).cpu()\n",
    )
    good = (
        "import torch\n\n@torch.compile(mode='reduce-overhead')\ndef f(x):\n"
        "    return x + torch.arange(x.shape[-1], device=x.device)\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not region_records_cudagraphs(self.ctx):
            return
        receiver = method_call(node, {"cpu"})
        if receiver is not None and self.ctx.value(receiver).tensorish:
            self.report(node, confidence=Confidence.CERTAIN, says="cudagraph-skip", what="`.cpu()`")
            return
        resolved = self.ctx.resolve(node.func) or ""
        if resolved in FACTORIES and not any(a.keyword is not None and a.keyword.value == "device" for a in node.args):
            self.report(node, confidence=Confidence.LIKELY, says="cudagraph-skip", what=f"`{resolved}` without device=")
