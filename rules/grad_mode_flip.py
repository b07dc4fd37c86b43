from __future__ import annotations

from breaklint.finding import Confidence, Severity, Stage
from breaklint.rule import CompiledCall, Rule

MARKERS = ("no_grad", "inference_mode", "set_grad_enabled")  # cheap text test before any walk


class GradModeFlip(Rule):
    """## What it does
    Finds a compiled callable that the same file calls both under `torch.no_grad()` (or
    `torch.inference_mode()`, `torch.set_grad_enabled(False)`, a `@torch.no_grad()` function) and
    with gradients enabled, e.g. a training step and an evaluation loop sharing one
    `torch.compile(model)`.

    ## Why is this bad?
    The grad mode is part of the global state Dynamo guards on (`GLOBAL_STATE changed:
    grad_mode`). The first call in the other mode fails that guard and compiles the whole model
    again: one extra compile per mode, and one step closer to `recompile_limit`. Under
    `inference_mode` the two graphs differ too, so nothing is shared.

    ## How to fix
    Accept it knowingly (two compiles, then both are cached), or run evaluation on the
    uncompiled module (`model._orig_mod`, or keep a reference to it). A second
    `torch.compile(model)` for evaluation does not help: the cache belongs to `forward`'s code
    object, which both wrappers share.

    ## When it is fine
    Usually: two compiles are a one-time cost. It matters with large models (compile time) and
    when the mode also flips inside the step.

    ## Dynamo says
    `Recompiling function forward ... triggered by the following guard failure(s):
    GLOBAL_STATE changed: grad_mode`.
    """

    code = "BL204"
    name = "grad-mode-flip"
    stage = Stage.GUARDS
    severity = Severity.INFO
    message = (
        "compiled `{callee}` is called here with gradients disabled and with gradients enabled at line {other}: "
        "grad mode is part of Dynamo's guards, so the switch compiles it a second time"
    )
    help = "accept one extra compile per mode, or evaluate with the uncompiled module (model._orig_mod)"
    dynamo_says = {"recompile": "`GLOBAL_STATE changed: grad_mode`"}
    bad = (
        "import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n\n"
        "model = torch.compile(Net())\n\ndef run(x):\n    model(x).sum().backward()\n"
        "    with torch.no_grad():\n        return model(x)\n",
    )
    good = (
        "import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n\n"
        "net = Net()\nmodel = torch.compile(net)\n\ndef run(x):\n    model(x).sum().backward()\n"
        "    with torch.no_grad():\n        return net(x)\n",
    )

    file_scope = True  # call sites live outside compiled regions

    def file_hooks(self) -> bool:
        return any(marker in self.ctx.file.text for marker in MARKERS)

    def end_file(self) -> None:
        """From the index's facts: the names this file binds to compiled callables, and each of
        their calls with whether gradients are off around it (summary.CompiledCall)."""
        facts = self.ctx.guard_facts
        compiled = {name.name for name in facts.names}
        calls: dict[str, list[CompiledCall]] = {}
        for call in facts.calls:
            if call.callee in compiled:
                calls.setdefault(call.callee, []).append(call)
        for callee, seen in calls.items():
            with_grad = [c for c in seen if not c.grad_disabled]
            without = [c for c in seen if c.grad_disabled]
            if with_grad and without:
                text = self.message.format(callee=callee, other=with_grad[0].place.line)
                self.ctx.emit(self.make_finding(
                    self.ctx.file.display, self.ctx.span_of(without[0].place), text, Confidence.LIKELY,
                    None, "recompile", target=self.ctx.target_torch, recompiles=self.ctx.compiled_line(callee),
                ))
