from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule


class TensorId(Rule):
    """## What it does
    Finds `id(tensor)` inside a compiled region.

    ## Why is this bad?
    Dynamo can trace `id()`, but only by guarding on the object's identity
    (`___check_obj_id(x, 1407...)`). A new tensor each call (the next batch, a fresh activation)
    fails that guard, so the function recompiles on every call until `recompile_limit` (8) and
    then runs eagerly.

    ## How to fix
    Key caches by something stable: a name, a shape, `t.data_ptr()` outside the compiled code,
    or pass an explicit key in. Inside the region, use the tensor itself.

    ## When it is fine
    `id()` of module-level objects that never change (a config, a module); code outside the
    region.

    ## Dynamo says
    `Recompiling function ... triggered by the following guard failure(s): ___check_obj_id(x,
    ...)`, or `Cache line invalidated because L['x'] got deallocated`.
    """

    code = "BL203"
    name = "tensor-id"
    stage = Stage.GUARDS
    message = "`id()` of a tensor in {region} makes Dynamo guard on that object's identity: every new tensor recompiles"
    help = "key by something stable (a name, a shape) or pass the key in; do not call id() on tensors in compiled code"
    dynamo_says = {"recompile": "guard failure on every new tensor (`___check_obj_id(x, ...)`)"}
    bad = ("import torch\n\nCACHE = {}\n\n@torch.compile\ndef f(x: torch.Tensor):\n    key = id(x)\n"
           "    return x * 2\n",)
    good = ("import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    key = tuple(x.shape)\n    return x * 2\n",)

    def visit_Call(self, node: cst.Call) -> None:
        if not (isinstance(node.func, cst.Name) and self.ctx.resolve(node.func) == "id" and len(node.args) == 1):
            return
        value = self.ctx.value(node.args[0].value)
        if value.tensorish:
            confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
            self.report(node, confidence=confidence, says="recompile")
