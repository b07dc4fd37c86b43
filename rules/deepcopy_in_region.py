from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule


class DeepcopyInRegion(Rule):
    """## What it does
    Finds `copy.deepcopy(tensor)` and `copy.copy(tensor)` inside a compiled region.

    ## Why is this bad?
    Copying a tensor through the `copy` module calls `Tensor.__deepcopy__`/`__reduce_ex__`,
    which Dynamo does not trace: it ends the graph and copies eagerly.

    ## How to fix
    Use `t.clone()` (traced, and differentiable) or `t.detach().clone()`.

    ## When it is fine
    Deep copies of plain Python containers (`copy.deepcopy({"a": 1})`) are traced. A deep copy
    of a module is not reported: whether and where it breaks depends on how the module is
    reached (it broke inside torch's `Parameter.__deepcopy__` in one 2.13 run and not in
    another), so copy modules outside the compiled code.

    ## Dynamo says
    `Attempted to copy.deepcopy a tensor` (GB4198, 2.13) for `copy.deepcopy`; `torch.* op
    returned non-Tensor` (GB0208) for `copy.copy` of a tensor.
    """

    code = "BL116"
    name = "deepcopy-in-region"
    stage = Stage.DYNAMO
    message = "`{function}` of a tensor in {region} is not traced and forces a graph break"
    help = "use t.clone() or t.detach().clone()"
    dynamo_says = {
        "GB4198": "Attempted to copy.deepcopy a tensor",
        "GB0208": "torch.* op returned non-Tensor",
    }
    bad = ("import copy\nimport torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    return copy.deepcopy(x) * 2\n",)
    good = ("import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    return x.clone() * 2\n",)

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func)
        if resolved not in ("copy.deepcopy", "copy.copy") or not node.args:
            return
        value = self.ctx.value(node.args[0].value)
        if value.tensorish:
            confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
            says = "GB4198" if resolved == "copy.deepcopy" else "GB0208"
            self.report(node, confidence=confidence, says=says, function=f"{resolved}()")
