"""BL601 ddp-graph-split: <one line: the pattern found>."""

from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule


class DdpGraphSplit(Rule):
    """## What it does
    <The pattern, in a sentence or two.>

    ## Why is this bad?
    <What Dynamo (or the later stage) does with it, and what it costs.>

    ## How to fix
    <A concrete fix.>

    ## When it is fine
    <When the cost is intended or absent.>

    ## Dynamo says
    `<the message Dynamo logs>` (GBxxxx).
    """

    code = "BL601"
    name = "ddp-graph-split"
    stage = Stage.DISTRIBUTED
    message = "<what> in {region} <what it does to the graph>"
    help = "<the fix, one line>"
    dynamo_says = {}  # GB id -> what Dynamo says (shared/reference/graph-break-registry.md)
    bad = ("import torch\n\n@torch.compile\ndef f(x):\n    return x  # <the pattern>\n",)
    good = ("import torch\n\ndef f(x):\n    return x  # not compiled\n",)

    def visit_Call(self, node: cst.Call) -> None:
        if False:  # <match the pattern; self.ctx holds the region, values and resolution>
            self.report(node, confidence=Confidence.LIKELY)
