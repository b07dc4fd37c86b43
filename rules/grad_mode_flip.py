from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Severity, Span, Stage
from breaklint.rule import dotted, FileContext, Rule

from ._support import is_compile_call, is_compile_decorator

NO_GRAD = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
                     "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.inference_mode"})
SET_GRAD = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"})
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

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.compiled: set[str] = set()  # names bound to compiled callables
        # Every call of a name: (node, under a grad switch, the def it sits in — for its span).
        self.calls: dict[str, list[tuple[cst.Call, bool, cst.FunctionDef | None]]] = {}
        self.disabled = 0
        self.pushed: list[bool] = []

    @classmethod
    def reads_whole_file(cls, text: str) -> bool:
        return any(marker in text for marker in MARKERS)

    def end_file(self) -> None:
        for callee, calls in self.calls.items():
            with_grad = [(node, scope) for node, disabled, scope in calls if not disabled]
            without = [(node, scope) for node, disabled, scope in calls if disabled]
            if callee in self.compiled and with_grad and without:
                other = self._span(*with_grad[0]).start_line
                text = self.message.format(callee=callee, other=other)
                self.ctx.emit(self.make_finding(
                    self.ctx.file.display, self._span(*without[0]), text, Confidence.LIKELY,
                    None, "recompile", target=self.ctx.target_torch,
                ))

    def _span(self, node: cst.Call, scope: cst.FunctionDef | None) -> Span:
        """Positions of the def the call sits in, as during the traversal (source.py)."""
        file = self.ctx.file
        outer, file.scope = file.scope, scope
        try:
            return file.span(node)
        finally:
            file.scope = outer

    def _resolve(self, expr: cst.BaseExpression) -> str | None:
        return self.ctx.module.imports.resolve(expr)

    def _switches_off(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Call):
            name = self._resolve(expr.func)
            if name in NO_GRAD:
                return not (expr.args and isinstance(expr.args[0].value, cst.Name) and expr.args[0].value.value == "False")
            if name in SET_GRAD:
                return bool(expr.args) and isinstance(expr.args[0].value, cst.Name) and expr.args[0].value.value == "False"
        return False

    # --- file-scope hooks: names bound to compiled callables, every call with its grad mode ---
    def file_visit_Assign(self, node: cst.Assign) -> None:
        if is_compile_call(node.value, self._resolve):
            for target in node.targets:
                name = dotted(target.target)
                if name is not None:
                    self.compiled.add(name)

    def file_visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        decorators = [d.decorator for d in node.decorators]
        if any(is_compile_decorator(d, self._resolve) for d in decorators):
            self.compiled.add(node.name.value)
        off = any(self._switches_off(d) for d in decorators)
        self.pushed.append(off)
        self.disabled += off

    def file_leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.disabled -= self.pushed.pop()

    def file_visit_With(self, node: cst.With) -> None:
        off = any(self._switches_off(item.item) for item in node.items)
        self.pushed.append(off)
        self.disabled += off

    def file_leave_With(self, original_node: cst.With) -> None:
        self.disabled -= self.pushed.pop()

    def file_visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "compile" and not node.args:
            name = dotted(node.func.value)  # model.compile() compiles in place
            if name is not None:
                self.compiled.add(name)
            return
        name = dotted(node.func)
        if name is not None:
            self.calls.setdefault(name, []).append((node, self.disabled > 0, self.ctx.file.scope))
