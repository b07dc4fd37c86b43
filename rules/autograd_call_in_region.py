from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import method_call, Rule

FUNCTIONS = {"torch.autograd.grad": "GB9186", "torch.autograd.backward": "GB0007"}
METHODS = {"backward": "GB0123", "retain_grad": "GB0108"}


class AutogradCallInRegion(Rule):
    """## What it does
    Finds autograd being driven from inside a compiled region: `loss.backward()`,
    `torch.autograd.grad(...)`, `torch.autograd.backward(...)`, `t.retain_grad()`.

    ## Why is this bad?
    AOTAutograd builds the backward graph itself, from the forward graph Dynamo captured; it
    cannot also run an autograd pass in the middle of the forward. Dynamo ends the graph before
    the call and runs autograd eagerly, so the compiled region is cut in two and the backward of
    the first part is not fused with the rest. `retain_grad()` makes Dynamo give up on the whole
    function.

    ## How to fix
    Compile the forward (and loss) only, and call `loss.backward()` outside the compiled
    function; the backward is compiled for you. For gradients inside a training step (gradient
    penalties, meta-learning), use `torch.func.grad`/`vjp`, which are traced, or compiled
    autograd (`torch._dynamo.config.compiled_autograd = True`).

    ## When it is fine
    Outside compiled code: the usual training loop.

    ## Dynamo says
    `Unsupported Tensor.backward() call` (GB0123); `using torch.autograd.grad with
    torch._dynamo.config.trace_autograd_ops=False` (GB9186, from 2.11); `Attempted to call
    function marked as skipped` (GB0007) for `torch.autograd.backward`; `Tensor.retain_grad()
    with AOTDispatcher` (GB0108).
    """

    code = "BL301"
    name = "autograd-call-in-region"
    stage = Stage.AOT_AUTOGRAD
    message = "{what} in {region} runs autograd inside the traced forward: AOTAutograd cannot take it, the graph breaks"
    help = "call backward() outside the compiled function; use torch.func.grad/vjp for gradients inside it"
    dynamo_says = {
        "GB0123": "Unsupported Tensor.backward() call",
        "GB9186": "using `torch.autograd.grad` with `torch._dynamo.config.trace_autograd_ops=False`",
        "GB0007": "Attempted to call function marked as skipped",
        "GB0108": "Tensor.retain_grad() with AOTDispatcher",
    }
    bad = ("import torch\n\n@torch.compile\ndef step(x, w):\n    loss = (x @ w).sum()\n    loss.backward()\n"
           "    return loss\n",)
    good = ("import torch\n\n@torch.compile\ndef forward(x, w):\n    return (x @ w).sum()\n\n"
            "def step(x, w):\n    loss = forward(x, w)\n    loss.backward()\n    return loss\n",)

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func) or ""
        if resolved in FUNCTIONS:
            self.report(node, confidence=Confidence.CERTAIN, says=FUNCTIONS[resolved], what=f"`{resolved}()`")
            return
        receiver = method_call(node, METHODS)
        if receiver is not None and not resolved.startswith("torch."):
            value = self.ctx.value(receiver)
            if value.tensorish:
                method = node.func.attr.value  # type: ignore[attr-defined]
                confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
                self.report(node, confidence=confidence, says=METHODS[method], what=f"`.{method}()`")
