from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import bind, caller_functions, CallResolver, DISABLE_NAMES, FunctionInfo, Rule

from ._support import bindings, called_name, config_patch_block

# What Dynamo 2.13 says for each (read from real runs, see testdata/rules/BL105).
EXPLICIT_BREAKS = {
    "torch._dynamo.graph_break": "GB0025",
    "torch._dynamo.step_unsupported": "GB0275",  # a break Dynamo cannot resume from: the frame is skipped
    "breakpoint": "GB0059",  # a builtin Dynamo has no rule for
    "pdb.set_trace": "GB0007",  # pdb is on Dynamo's skip list
    "ipdb.set_trace": "GB0007",
}


# torch.optim breaks on purpose (torch/optim/optimizer.py, 2.13): `step` of the optimizers
# wrapped by `_use_grad_for_differentiable` calls `torch._dynamo.graph_break()` before and after
# the update (so that AOTAutograd sees an inference graph), and `zero_grad` is
# `@torch._disable_dynamo`. The others' `step` is `@torch.no_grad()`, traced.
OPTIMIZERS = frozenset({"ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "Muon",
                        "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam"})
STEP_BREAKS = frozenset({"ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop",
                         "Rprop", "SGD"})
OPTIMIZER_BREAKS = {"step": "GB0025", "zero_grad": "GB0008"}
OPTIMIZER_WHY = {"step": "torch.optim breaks the graph around the update",
                 "zero_grad": "torch.optim disables Dynamo for it"}


class ExplicitGraphBreak(Rule):
    """## What it does
    Finds code that breaks the graph on purpose inside a compiled region:
    `torch._dynamo.graph_break()`, `torch._dynamo.step_unsupported()`, `breakpoint()`,
    `pdb.set_trace()`; a call to a function
    wrapped by `torch.compiler.disable` / `torch._dynamo.disable` (decorated, `fn =
    disable(helper)`, or `disable(helper)(x)`, or passed in as an argument: `hook(x)` in a
    function the region calls as `apply(helper, x)`); `with torch._dynamo.config.patch(...):`
    inside the region; and a `torch.optim` optimizer built in the file stepped or zeroed in the
    region (`self.optimizer.step()`, `opt.zero_grad()`): torch.optim breaks the graph around
    `step` on purpose, and disables Dynamo for `zero_grad`.

    ## Why is this bad?
    Each one splits the traced function in two graphs with Python in between. Debugging hooks
    left in a model silently cost speed in production. A disabled function runs eagerly, so
    Dynamo ends the graph before the call and starts a new one after it. A config patch cannot
    be entered while tracing: Dynamo breaks at the `with` and then gives up on the whole
    function (`Unsupported context manager`), which runs uncompiled.

    ## How to fix
    Remove it. To debug compiled code, run eagerly with
    `torch.compiler.set_stance("force_eager")` or use `TORCH_LOGS=graph_breaks`. Patch the
    config around the call of the compiled function (or decorate it), not inside it. For a
    helper that must stay out of the graph, a `torch.library.custom_op` keeps one graph around it.
    Step and zero the optimizer outside the compiled function (compile `optimizer.step` on its
    own if it is worth it).

    ## When it is fine
    A deliberate `graph_break()` or disabled helper that isolates untraceable code, measured to
    be worth it.

    ## Dynamo says
    `Call to torch._dynamo.graph_break()` (GB0025); `torch._dynamo.step_unsupported() with empty
    checkpoint` (GB0275, torch 2.10+: Dynamo skips the frame); for `breakpoint()`: `Failed to trace builtin
    operator` (GB0059); for `pdb.set_trace()` and `config.patch(...)`, on Dynamo's skip list:
    `Attempted to call function marked as skipped` (GB0007); for a disabled function: `Skip
    calling torch.compiler.disable()d function` (GB0098) or, for a method or with
    `recursive=False`, `Skip inlining torch.compiler.disable()d function` (GB0099); for an
    optimizer's `step`, `Call to torch._dynamo.graph_break()` (GB0025, inside torch.optim), and for
    `zero_grad`, `Attempted to inline function marked as skipped` (GB0008).
    """

    code = "BL105"
    name = "explicit-graph-break"
    stage = Stage.DYNAMO
    message = "{what} in {region} forces a graph break"
    help = (
        "remove it; debug compiled code with torch.compiler.set_stance('force_eager') or TORCH_LOGS=graph_breaks; "
        "make a disabled helper traceable or a torch.library.custom_op; patch config around the compiled call"
    )
    dynamo_says = {
        "GB0025": "Call to `torch._dynamo.graph_break()`",
        "GB0007": "Attempted to call function marked as skipped",
        "GB0008": "Attempted to inline function marked as skipped",
        "GB0059": "Failed to trace builtin operator",
        "GB0098": "Skip calling `torch.compiler.disable()`d function",
        "GB0099": "Skip inlining `torch.compiler.disable()`d function",
        "GB0275": "torch._dynamo.step_unsupported() with empty checkpoint",
    }
    bad = ("import torch\n\n@torch.compile\ndef f(x):\n    x = x + 1\n    torch._dynamo.graph_break()\n    return x * 2\n",)
    good = ("import torch\n\n@torch.compile\ndef f(x):\n    x = x + 1\n    return x * 2\n",)

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func)
        if resolved in EXPLICIT_BREAKS:
            self.report(node, confidence=Confidence.CERTAIN, says=EXPLICIT_BREAKS[resolved], what=f"`{resolved}()`")
        elif self._calls_disabled(node.func):
            self.report(node, confidence=Confidence.CERTAIN, says=("GB0098", "GB0099"),
                        what="a call to a `torch.compiler.disable`d function")
        else:
            optimizer = self._optimizer_method(node.func)
            if optimizer is not None:
                cls, method = optimizer
                self.report(node, confidence=Confidence.CERTAIN, says=OPTIMIZER_BREAKS[method],
                            what=f"`{cls}.{method}()` ({OPTIMIZER_WHY[method]})")

    def _optimizer_method(self, func: cst.BaseExpression) -> tuple[str, str] | None:
        """(`torch.optim.SGD`, `step`) for `opt.step()` on an optimizer built in this file."""
        if not isinstance(func, cst.Attribute) or func.attr.value not in OPTIMIZER_BREAKS:
            return None
        method = func.attr.value
        classes = {called_name(value, module) for value, module in bindings(self.ctx, func.value)}
        if len(classes) != 1:
            return None
        cls = classes.pop() or ""
        package, _, name = cls.rpartition(".")
        if not package.startswith("torch.optim") or "lr_scheduler" in package or "swa_utils" in package:
            return None
        if name in (STEP_BREAKS if method == "step" else OPTIMIZERS):
            return cls, method
        return None

    def visit_With(self, node: cst.With) -> None:
        if config_patch_block(node, self.ctx.module):
            self.report(node, confidence=Confidence.CERTAIN, says="GB0007",
                        what="`with config.patch(...)` (Dynamo then skips the whole function)")

    def _calls_disabled(self, func: cst.BaseExpression) -> bool:
        """`helper(x)` for a disabled `helper`, `fast = disable(helper)` then `fast(x)`, and
        `disable(helper)(x)`."""
        if isinstance(func, cst.Call):
            return self.ctx.resolve(func.func) in DISABLE_NAMES
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return False
        if isinstance(func, cst.Name) and self._passed_disabled(func.value):
            return True
        targets: list[FunctionInfo] = CallResolver(self.ctx.project).function_refs(func, self.ctx.function)
        if any(target in target.module.disabled for target in targets):
            return True
        return any(isinstance(value, cst.Call) and module.imports.resolve(value.func) in DISABLE_NAMES
                   for value, module in bindings(self.ctx, func))

    def _passed_disabled(self, param: str) -> bool:
        """`fn(x)` where `fn` is a parameter that a call in the region passes a disabled
        function to (`apply(helper, x)` for a `torch.compiler.disable`d `helper`)."""
        fn, region = self.ctx.function, self.ctx.region
        if fn is None or region is None or not region.callers or param not in fn.header.params \
                or param in fn.assigns:
            return False
        callers = caller_functions(self.ctx.project, region.callers)
        resolver = CallResolver(self.ctx.project)
        for caller, _ in callers or []:
            for call in caller.calls:
                for target, implicit in resolver.bound_targets(call, caller):
                    if target.qualname != fn.qualname or target.module.name != fn.module.name or implicit is None:
                        continue
                    passed = bind(call, fn.header, implicit).args.get(param)
                    if passed is not None and any(t in t.module.disabled for t in resolver.function_refs(passed, caller)):
                        return True
        return False
