from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule

# What Dynamo 2.13 says for each (read from real runs, see testdata/rules/BL105).
EXPLICIT_BREAKS = {
    "torch._dynamo.graph_break": "GB0025",
    "breakpoint": "GB0059",  # a builtin Dynamo has no rule for
    "pdb.set_trace": "GB0007",  # pdb is on Dynamo's skip list
    "ipdb.set_trace": "GB0007",
}


class ExplicitGraphBreak(Rule):
    """## What it does
    Finds code that breaks the graph on purpose inside a compiled region:
    `torch._dynamo.graph_break()`, `breakpoint()`, `pdb.set_trace()`.

    ## Why is this bad?
    Each one splits the traced function in two graphs with Python in between. Debugging hooks
    left in a model silently cost speed in production.

    ## How to fix
    Remove it. To debug compiled code, run eagerly with
    `torch.compiler.set_stance("force_eager")` or use `TORCH_LOGS=graph_breaks`.

    ## When it is fine
    A deliberate `graph_break()` that isolates untraceable code, measured to be worth it.

    ## Dynamo says
    `Call to torch._dynamo.graph_break()` (GB0025); for `breakpoint()`: `Failed to trace builtin
    operator` (GB0059); for `pdb.set_trace()`, on Dynamo's skip list: `Attempted to call function
    marked as skipped` (GB0007).
    """

    code = "BL105"
    name = "explicit-graph-break"
    stage = Stage.DYNAMO
    message = "{what} in {region} forces a graph break"
    help = "remove it; debug compiled code with torch.compiler.set_stance('force_eager') or TORCH_LOGS=graph_breaks"
    dynamo_says = {
        "GB0025": "Call to `torch._dynamo.graph_break()`",
        "GB0007": "Attempted to call function marked as skipped",
        "GB0059": "Failed to trace builtin operator",
    }
    bad = ("import torch\n\n@torch.compile\ndef f(x):\n    x = x + 1\n    torch._dynamo.graph_break()\n    return x * 2\n",)
    good = ("import torch\n\n@torch.compile\ndef f(x):\n    x = x + 1\n    return x * 2\n",)

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func)
        if resolved in EXPLICIT_BREAKS:
            self.report(node, confidence=Confidence.CERTAIN, says=EXPLICIT_BREAKS[resolved], what=f"`{resolved}()`")
