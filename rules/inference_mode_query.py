from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import method_call, Rule


class InferenceModeQuery(Rule):
    """## What it does
    Finds questions about inference mode asked inside a compiled region: `t.is_inference()` and
    `torch.is_inference_mode_enabled()`.

    ## Why is this bad?
    Dynamo does not model inference mode as traceable state: it cannot answer the question at
    trace time and ends the graph there (a graph break), on every call.

    ## How to fix
    Decide outside the compiled function and pass the answer in (or compile one function per
    mode); inside, `torch.is_grad_enabled()` and `self.training` are traced (they become guards).

    ## When it is fine
    Outside compiled code.

    ## Dynamo says
    `Encountered tensor.is_inference() during tracing` (GB0045); `Encountered
    torch.is_inference_mode_enabled during tracing` (GB0046).
    """

    code = "BL112"
    name = "inference-mode-query"
    stage = Stage.DYNAMO
    message = "{what} in {region} cannot be answered while tracing and forces a graph break"
    help = "decide outside the compiled code and pass the answer in; torch.is_grad_enabled() and self.training are traced"
    dynamo_says = {
        "GB0045": "Encountered tensor.is_inference() during tracing",
        "GB0046": "Encountered torch.is_inference_mode_enabled during tracing",
    }
    bad = ("import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    if x.is_inference():\n"
           "        return x\n    return x * 2\n",)
    good = ("import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    if torch.is_grad_enabled():\n"
            "        return x\n    return x * 2\n",)

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.resolve(node.func) == "torch.is_inference_mode_enabled":
            self.report(node, confidence=Confidence.CERTAIN, says="GB0046", what="`torch.is_inference_mode_enabled()`")
            return
        receiver = method_call(node, {"is_inference"})
        if receiver is not None and not node.args:
            value = self.ctx.value(receiver)
            if value.tensorish:
                confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
                self.report(node, confidence=confidence, says="GB0045", what="`.is_inference()`")
