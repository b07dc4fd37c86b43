from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import COMPILE_NAMES, dynamic_false, FileContext, Rule


def _dynamic_false(call: cst.Call) -> bool:
    return any(
        arg.keyword is not None and arg.keyword.value == "dynamic"
        and isinstance(arg.value, cst.Name) and arg.value.value == "False"
        for arg in call.args
    )


class ForcedStaticShapes(Rule):
    """## What it does
    Finds `torch.compile(..., dynamic=False)` in every spelling: as a decorator of a compiled
    function, as a call inside compiled code, or as a call anywhere (`opt = torch.compile(f,
    dynamic=False)`, `model = torch.compile(net, dynamic=False)`) where a call of it shows the
    shapes changing: in a loop with a size that follows the loop, or once per parameter of a
    loop over parameters (`for p in group["params"]`: an optimizer's step, as in timm's Kron).
    Without such a call the file does not show any shape changing, and the call form is silent.

    ## Why is this bad?
    By default Dynamo compiles for the first shapes it sees and, when a size changes, compiles
    once more with that dimension symbolic (automatic dynamic shapes). `dynamic=False` turns that
    off: every new batch size or sequence length fails a size guard and compiles again, and after
    `recompile_limit` (8) distinct shapes the function runs eagerly for good (with
    `fullgraph=True` the next new shape raises `FailOnRecompileLimitHit` instead: measured on
    torch 2.13 with a function called once per parameter of a 9-layer MLP; timm's Kron, whose
    calls pass per-parameter lists and strings too, recompiled 17 times for 18 shapes and did not
    raise). An optimizer step over parameters of many shapes compiles once per shape.

    ## How to fix
    Drop `dynamic=False` (let automatic dynamic shapes work), pass `dynamic=True`, or mark the
    varying dimension with `torch._dynamo.mark_dynamic(x, 0)`; pad inputs to a few fixed sizes
    if you need static shapes for speed.

    ## When it is fine
    When the shapes never change (a fixed-size serving batch), static shapes give the fastest
    kernels.

    ## Dynamo says
    `Recompiling function f ... triggered by the following guard failure(s): tensor 'x' size
    mismatch at index 0. expected 8, actual 4`, and after 8 shapes `torch._dynamo hit
    config.recompile_limit (8)`.
    """

    code = "BL210"
    name = "forced-static-shapes"
    stage = Stage.GUARDS
    message = "`dynamic=False` on {what}: every new input shape recompiles (then, after 8, runs eagerly)"
    help = "drop dynamic=False, pass dynamic=True, or torch._dynamo.mark_dynamic the varying dimension"
    dynamo_says = {"recompile": "`tensor 'x' size mismatch at index 0. expected 8, actual 4`"}
    bad = ("import torch\n\n@torch.compile(dynamic=False)\ndef f(x):\n    return x * 2\n",)
    good = ("import torch\n\n@torch.compile(dynamic=True)\ndef f(x):\n    return x * 2\n",)

    file_scope = True  # a compile call outside compiled code is a call site, not region code

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._decorator_calls: set[cst.Call] = set()

    def file_hooks(self) -> bool:
        return "dynamic" in self.ctx.file.text

    def end_file(self) -> None:
        """`name = torch.compile(target, dynamic=False)` outside compiled code (the pre-pass's
        compiled names; one in a region is visit_Call's), reported only where a call shows the
        shapes varying: a call in a loop with a size that changes, or one per parameter of a loop
        over parameters. Without such a call the file shows no shape changing: no finding (timm's
        Kron and transformers' flex attention were notes without evidence; Kron's calls sit in a
        loop over parameters and do recompile once per shape, docs/accuracy.md)."""
        module = self.ctx.module
        varying = {p.callee: p for p in self.ctx.recompile_predictions(self.code)}
        for name in module.guard_facts.names:
            evidence = varying.get(name.name)
            if evidence is None or not dynamic_false(name.options) or \
                    (name.target == name.name and name.name in module.functions):
                continue  # no evidence, or a decorator (visit_Decorator's) or `net.compile()`
            scope = module.defined[name.place.scope] if name.place.scope >= 0 else None
            if scope is not None and scope in self.ctx.regions:
                continue
            text = self.message.format(what="this torch.compile call")
            if evidence.guard == "mismatch":
                text += f"; line {evidence.place.line} calls it once per parameter, and parameters differ in shape"
            else:
                text += f"; line {evidence.place.line} calls it in a loop with a size that changes"
            self.ctx.emit(self.make_finding(self.ctx.file.display, self.ctx.span_of(name.place), text,
                                            Confidence.LIKELY, None, "recompile", target=self.ctx.target_torch,
                                            recompiles=self.ctx.compiled_line(name.name)))

    def visit_Decorator(self, node: cst.Decorator) -> None:
        call = node.decorator
        fn = self.ctx.function
        if isinstance(call, cst.Call) and fn is not None and node in fn.node.decorators:
            self._decorator_calls.add(call)
            if self.ctx.resolve(call.func) in COMPILE_NAMES and _dynamic_false(call):
                self.report(node, confidence=Confidence.LIKELY, says="recompile", what=f"`{fn.qualname}`")

    def visit_Call(self, node: cst.Call) -> None:
        if node in self._decorator_calls:
            return
        if self.ctx.resolve(node.func) in COMPILE_NAMES and node.args and _dynamic_false(node):
            self.report(node, confidence=Confidence.LIKELY, says="recompile", what="this torch.compile call")
