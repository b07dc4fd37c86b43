from __future__ import annotations

import traceback

import libcst as cst

from breaklint.finding import Confidence, Severity, Span, Stage
from breaklint.names import dotted
from breaklint.project import COMPILE_NAMES, OPTIMIZE_NAMES
from breaklint.rule import FileContext, Rule
from breaklint.walk import visit  # one frame per level: deep code cannot overflow the stack

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

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        # Call sites live outside compiled regions, which the engine does not visit: this rule
        # reads the file once on its own, and only when it mentions a grad-mode switch.
        if any(marker in ctx.file.text for marker in MARKERS):
            try:
                self._scan()
            except Exception as error:  # the engine contains errors in visits only: do it here
                from breaklint.registry import find_rule

                internal = find_rule("BL005")
                assert internal is not None
                ctx.emit(internal.make_finding(
                    ctx.file.display, Span(1, 1, 1, 1),
                    f"internal error in rule {self.code} ({self.name}): {type(error).__name__}: {error}",
                    details="".join(traceback.format_exception(error)),
                ))

    def _scan(self) -> None:
        resolve = self.ctx.module.imports.resolve
        scanner = _Scanner(resolve)
        visit(self.ctx.file.tree, scanner)
        for callee, calls in scanner.calls.items():
            with_grad = [node for node, disabled in calls if not disabled]
            without = [node for node, disabled in calls if disabled]
            if callee in scanner.compiled and with_grad and without:
                other = self.ctx.file.line(with_grad[0])
                text = self.message.format(callee=callee, other=other)
                self.ctx.emit(self.make_finding(
                    self.ctx.file.display, self.ctx.file.span(without[0]), text, Confidence.LIKELY,
                    None, "recompile", target=self.ctx.target_torch,
                ))


class _Scanner(cst.CSTVisitor):
    """Names bound to compiled callables, and every call of a name with its grad mode."""

    def __init__(self, resolve) -> None:  # type: ignore[no-untyped-def]
        self.resolve = resolve
        self.compiled: set[str] = set()
        self.calls: dict[str, list[tuple[cst.Call, bool]]] = {}
        self.disabled = 0
        self.pushed: list[bool] = []

    def _is_compile(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Call):
            name = self.resolve(expr.func)
            if name in COMPILE_NAMES:
                return True
            if isinstance(expr.func, cst.Call):  # torch.compile(**options)(fn)
                return self.resolve(expr.func.func) in COMPILE_NAMES | OPTIMIZE_NAMES
        return False

    def _switches_off(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Call):
            name = self.resolve(expr.func)
            if name in NO_GRAD:
                return not (expr.args and isinstance(expr.args[0].value, cst.Name) and expr.args[0].value.value == "False")
            if name in SET_GRAD:
                return bool(expr.args) and isinstance(expr.args[0].value, cst.Name) and expr.args[0].value.value == "False"
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._is_compile(node.value):
            for target in node.targets:
                name = dotted(target.target)
                if name is not None:
                    self.compiled.add(name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        decorators = [d.decorator for d in node.decorators]
        if any(self.resolve(d.func if isinstance(d, cst.Call) else d) in COMPILE_NAMES | OPTIMIZE_NAMES for d in decorators):
            self.compiled.add(node.name.value)
        off = any(self._switches_off(d) for d in decorators)
        self.pushed.append(off)
        self.disabled += off

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.disabled -= self.pushed.pop()

    def visit_With(self, node: cst.With) -> None:
        off = any(self._switches_off(item.item) for item in node.items)
        self.pushed.append(off)
        self.disabled += off

    def leave_With(self, original_node: cst.With) -> None:
        self.disabled -= self.pushed.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "compile" and not node.args:
            name = dotted(node.func.value)  # model.compile() compiles in place
            if name is not None:
                self.compiled.add(name)
            return
        name = dotted(node.func)
        if name is not None:
            self.calls.setdefault(name, []).append((node, self.disabled > 0))
