from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule
from breaklint.versions import Versions, pick

# Up to torch 2.11 Dynamo refuses every `copy.deepcopy` call, whatever it copies (GB0179). The
# pull request that inlines copy.deepcopy (pytorch#177484, March 2026, after the 2.11 branch cut)
# traces plain containers and breaks at a tensor's `__deepcopy__` (GB4198). 2.12 was not
# measured: it is judged like 2.13.
EVERY_DEEPCOPY_BREAKS = Versions(high="2.11")
DEEPCOPY_SAYS = {"GB0179": Versions(high="2.11"), "GB4198": Versions(low="2.12")}
# `copy.copy(tensor)`: torch 2.11 calls the skipped `copy.copy` (GB0007), 2.13 traces into
# `Tensor.__reduce_ex__` (GB0208); 2.12 not measured, judged like 2.13.
COPY_SAYS = {"GB0007": Versions(high="2.11"), "GB0208": Versions(low="2.12")}


class DeepcopyInRegion(Rule):
    """## What it does
    Finds `copy.deepcopy(tensor)` and `copy.copy(tensor)` inside a compiled region; for torch
    2.11 and older, every `copy.deepcopy(...)` there.

    ## Why is this bad?
    Copying a tensor through the `copy` module calls `Tensor.__deepcopy__`/`__reduce_ex__`,
    which Dynamo does not trace: it ends the graph and copies eagerly.

    ## How to fix
    Use `t.clone()` (traced, and differentiable) or `t.detach().clone()`.

    ## When it is fine
    Deep copies of plain Python containers (`copy.deepcopy({"a": 1})`) are traced (torch 2.13;
    not on 2.11, see Versions). A deep copy
    of a module is not reported: whether and where it breaks depends on how the module is
    reached (it broke inside torch's `Parameter.__deepcopy__` in one 2.13 run and not in
    another), so copy modules outside the compiled code.

    ## Dynamo says
    `Attempted to copy.deepcopy a tensor` (GB4198, 2.13) for `copy.deepcopy`; `torch.* op
    returned non-Tensor` (GB0208) for `copy.copy` of a tensor. Torch 2.11: `copy.deepcopy()`
    (GB0179) for every `copy.deepcopy`, and `Attempted to call function marked as skipped`
    (GB0007) for `copy.copy` of a tensor.

    ## Versions
    Up to torch 2.11 Dynamo refuses every `copy.deepcopy` call, whatever it copies: a dict of
    options breaks as a tensor does (GB0179, measured on 2.11). Torch 2.13 inlines
    `copy.deepcopy`: plain containers are traced, a tensor breaks at its `__deepcopy__`
    (GB4198). The pull request that does it (pytorch#177484, "Support id() on containers and
    copy.deepcopy tracing") dates from March 2026, after the 2.11 branch cut; 2.12 was not
    measured, and is judged like 2.13. `copy.copy` of a tensor breaks in both, under another
    id on 2.11 (GB0007: `copy.copy` is a function Dynamo skips there).
    """

    code = "BL116"
    name = "deepcopy-in-region"
    stage = Stage.DYNAMO
    message = "`{function}` of {what} in {region} is not traced and forces a graph break"
    help = "use t.clone() or t.detach().clone()"
    dynamo_says = {
        "GB4198": "Attempted to copy.deepcopy a tensor",
        "GB0208": "torch.* op returned non-Tensor",
        "GB0179": "copy.deepcopy()",
        "GB0007": "Attempted to call function marked as skipped",
    }
    bad = ("import copy\nimport torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    return copy.deepcopy(x) * 2\n",)
    good = ("import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    return x.clone() * 2\n",)

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func)
        if resolved not in ("copy.deepcopy", "copy.copy") or not node.args:
            return
        value = self.ctx.value(node.args[0].value)
        target = self.ctx.target_torch
        if value.tensorish:
            confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
            says = pick(DEEPCOPY_SAYS if resolved == "copy.deepcopy" else COPY_SAYS, target)
            self.report(node, confidence=confidence, says=says, function=f"{resolved}()", what="a tensor")
        elif resolved == "copy.deepcopy" and target in EVERY_DEEPCOPY_BREAKS:
            self.report(node, confidence=Confidence.CERTAIN, says="GB0179", function=f"{resolved}()",
                        what=f"a value that is not a tensor (torch {target} refuses every deep copy)")
