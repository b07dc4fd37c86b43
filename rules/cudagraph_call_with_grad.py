from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import libcst as cst

from breaklint.finding import Confidence, Span, Stage
from breaklint.rule import NO_GRAD, SET_GRAD, FileContext, Rule

from ._cudagraphs import cudagraph_names, dotted
BACKWARD = frozenset({"torch.autograd.backward", "torch.autograd.grad"})
STORES = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "put"})
MODES = ("reduce-overhead", "max-autotune")  # cheap text test before any walk


# What keeps no autograd graph alive: Python numbers and strings made of a result, indices,
# comparisons, detached copies.
DETACHING_BUILTINS = frozenset({"int", "float", "bool", "str", "len", "repr", "print", "round"})
DETACHING_METHODS = frozenset({"item", "tolist", "argmax", "argmin", "detach", "numpy", "nonzero", "eq", "ne"})


@dataclass(frozen=True)
class _Flow:
    """A value and where it goes: names it is assigned (or stored) into, or out of the function."""

    value: cst.CSTNode
    into: frozenset[str] = frozenset()
    escapes: bool = False  # returned, yielded, or stored on an attribute or item


@dataclass
class _Scope:
    """A def (or the module's own statements): what it calls and where the values go."""

    backward: bool = False  # calls `.backward()`, `torch.autograd.grad/backward`
    callees: set[str] = field(default_factory=set)  # names it calls (for a backward in a helper)
    flows: list[_Flow] = field(default_factory=list)
    calls: list[tuple[str, Callable[[], Span]]] = field(default_factory=list)  # calls made with grad enabled, and where

    def escapes(self, compiled: set[str]) -> bool:
        """A compiled call's result (or what holds it) leaves the function."""
        tainted: set[str] = set()
        changed = True
        while changed:
            changed = False
            for flow in self.flows:
                if _carries(flow.value, compiled, tainted):
                    if flow.escapes:
                        return True
                    if not flow.into <= tainted:
                        tainted |= flow.into
                        changed = True
        return False


def _carries(node: cst.CSTNode, compiled: set[str], tainted: set[str]) -> bool:
    """`node` holds a compiled call's result, or a name holding one, with its autograd graph."""
    if isinstance(node, cst.Name):
        return node.value in tainted
    if isinstance(node, cst.Comparison):
        return False
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Name) and func.value in DETACHING_BUILTINS:
            return False
        if isinstance(func, cst.Attribute) and func.attr.value in DETACHING_METHODS:
            return False
        if dotted(func) in compiled:
            return True
    return any(_carries(child, compiled, tainted) for child in node.children)


def _names(node: cst.CSTNode) -> frozenset[str]:
    if isinstance(node, cst.Name):
        return frozenset({node.value})
    return frozenset().union(*(_names(child) for child in node.children))


class CudagraphCallWithGrad(Rule):
    """## What it does
    Finds a module compiled with `mode="reduce-overhead"` (or `"max-autotune"`) that is called
    with gradients enabled where no backward follows: an evaluation or serving loop, a
    benchmark, a `generate` function without `torch.no_grad()` / `torch.inference_mode()`.

    ## Why is this bad?
    With grad enabled, the compiled forward saves what a backward would need, and CUDA graph
    trees keep each call's outputs alive for that backward. When the next call comes before it
    (it never comes), they cannot reuse the recorded graph's memory and record a new graph
    instead of replaying: every call pays a recording. On an H200 (torch 2.11) resnet50 at
    batch 1 took 58.9 ms a call this way, against 0.81 ms under `torch.no_grad()` — slower than
    eager (7.3 ms): CUDA graphs look like a loss when they are a 2.5x win over Inductor.

    ## How to fix
    Run inference under `with torch.no_grad():` or `torch.inference_mode()`, or decorate the
    function with `@torch.no_grad()`. If a backward does follow elsewhere, call
    `torch.compiler.cudagraph_mark_step_begin()` before each call, or detach what you keep.

    ## When it is fine
    When the parameters do not require grad (`model.requires_grad_(False)`): the forward is
    compiled as an inference graph. The rule stays silent when the file freezes parameters, when
    the result leaves the function (a caller may run the backward) and when a backward is
    reachable from the function.

    ## Dynamo says
    Inductor's CUDA graph trees warn `Unable to hit fast path of CUDAGraphs because of pending,
    uninvoked backwards` (torch 2.13: `because outputs from a previous step still require
    backward`) and record a graph per call (`cudagraphs` log: `Recording function ...`).
    Proven on an H200 (torch 2.11): testdata/rules/BL506, benchmarks/results/gpu/.
    """

    code = "BL506"
    name = "cudagraph-call-with-grad"
    stage = Stage.CUDAGRAPHS
    message = ("`{callee}` (a module compiled with CUDA graphs) is called here with gradients enabled and no "
               "backward follows: its outputs wait for a backward, so CUDA graph trees record a new graph "
               "instead of replaying")
    help = ("call it under `torch.no_grad()` / `torch.inference_mode()` (or decorate the function with "
            "`@torch.no_grad()`); if a backward follows elsewhere, call torch.compiler.cudagraph_mark_step_begin() first")
    dynamo_says = {"cudagraph-pending-backward": "`Unable to hit fast path of CUDAGraphs because of pending, "
                                                 "uninvoked backwards`"}
    bad = (
        "import torch\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = torch.nn.Linear(8, 8)\n\n    def forward(self, x):\n        return self.fc(x)\n\n"
        "model = torch.compile(Net().eval(), mode='reduce-overhead')\n\n"
        "def serve(batches):\n    for x in batches:\n        y = model(x)\n        print(y.argmax())\n",
    )
    good = (
        "import torch\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = torch.nn.Linear(8, 8)\n\n    def forward(self, x):\n        return self.fc(x)\n\n"
        "model = torch.compile(Net().eval(), mode='reduce-overhead')\n\n"
        "@torch.no_grad()\ndef serve(batches):\n    for x in batches:\n        y = model(x)\n        print(y.argmax())\n",
        "import torch\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = torch.nn.Linear(8, 8)\n\n    def forward(self, x):\n        return self.fc(x)\n\n"
        "model = torch.compile(Net(), mode='reduce-overhead')\n\n"
        "def train(batches, opt):\n    for x in batches:\n        loss = model(x).sum()\n        loss.backward()\n"
        "        opt.step()\n",
    )

    file_scope = True  # the calls live outside compiled regions

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.compiled: set[str] = set()  # names bound to modules compiled with CUDA graphs (end_file)
        self.frozen = False  # the file turns requires_grad off: the forward may be an inference graph
        self.scopes: list[_Scope] = [_Scope()]
        self.done: dict[str, _Scope] = {}  # by def name
        self.all: list[_Scope] = []
        self.disabled = 0
        self.pushed: list[bool] = []

    @classmethod
    def reads_whole_file(cls, text: str) -> bool:
        return any(mode in text for mode in MODES)

    def _resolve(self, expr: cst.BaseExpression) -> str | None:
        return self.ctx.module.imports.resolve(expr)

    def _switches_off(self, expr: cst.BaseExpression) -> bool:
        name = self._resolve(expr.func if isinstance(expr, cst.Call) else expr)
        args = expr.args if isinstance(expr, cst.Call) else ()
        false = bool(args) and isinstance(args[0].value, cst.Name) and args[0].value.value == "False"
        if name in NO_GRAD:
            return not false  # torch.inference_mode(False) turns it back on
        return name in SET_GRAD and false

    def _flow(self, value: cst.CSTNode, into: frozenset[str] = frozenset(), escapes: bool = False) -> None:
        self.scopes[-1].flows.append(_Flow(value, into, escapes))

    # --- what is compiled with CUDA graphs, and where values go -----------------------------
    def file_visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        for target in node.targets:
            if isinstance(target.target, cst.Attribute) and target.target.attr.value == "requires_grad":
                self.frozen |= isinstance(value, cst.Name) and value.value == "False"
        stored = any(isinstance(t.target, (cst.Attribute, cst.Subscript)) for t in node.targets)
        self._flow(value, frozenset().union(*(_names(t.target) for t in node.targets)), stored)

    def file_visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._flow(node.value, _names(node.target), isinstance(node.target, (cst.Attribute, cst.Subscript)))

    def file_visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._flow(node.value, _names(node.target), isinstance(node.target, (cst.Attribute, cst.Subscript)))

    def file_visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self._flow(node.value, escapes=True)

    def file_visit_Yield(self, node: cst.Yield) -> None:
        if isinstance(node.value, cst.BaseExpression):
            self._flow(node.value, escapes=True)

    def file_visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        off = any(self._switches_off(d.decorator) for d in node.decorators)
        self.pushed.append(off)
        self.disabled += off
        self.scopes.append(_Scope())

    def file_leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.disabled -= self.pushed.pop()
        scope = self.scopes.pop()
        self.done[original_node.name.value] = scope
        self.all.append(scope)

    def file_visit_With(self, node: cst.With) -> None:
        off = any(self._switches_off(item.item) for item in node.items)
        self.pushed.append(off)
        self.disabled += off

    def file_leave_With(self, original_node: cst.With) -> None:
        self.disabled -= self.pushed.pop()

    def file_visit_Call(self, node: cst.Call) -> None:
        scope = self.scopes[-1]
        func = node.func
        if isinstance(func, cst.Attribute):
            attr = func.attr.value
            if attr == "backward" or self._resolve(func) in BACKWARD:
                scope.backward = True
            elif attr == "requires_grad_" and node.args and isinstance(node.args[0].value, cst.Name) \
                    and node.args[0].value.value == "False":
                self.frozen = True
            elif attr in STORES and node.args:  # outputs.append(y): y goes where outputs goes
                receiver = dotted(func.value)
                if receiver is not None:
                    for arg in node.args:
                        self._flow(arg.value, frozenset({receiver.split(".")[0]}), "." in receiver)
        elif self._resolve(func) in BACKWARD:
            scope.backward = True
        name = dotted(func)
        if name is None:
            return
        scope.callees.add(name)
        if not self.disabled:
            scope.calls.append((name, self.ctx.file.span_later(node)))

    # --- report -------------------------------------------------------------------------------
    def _reaches_backward(self, scope: _Scope) -> bool:
        seen: set[str] = set()
        todo = [scope]
        while todo:
            current = todo.pop()
            if current.backward:
                return True
            for callee in current.callees:
                name = callee.removeprefix("self.")  # a method of the same class, most likely
                if name in self.done and name not in seen:
                    seen.add(name)
                    todo.append(self.done[name])
        return False

    def end_file(self) -> None:
        # What is compiled with CUDA graphs: the index's compiled names (one fact, _cudagraphs.py).
        self.compiled = cudagraph_names(self.ctx, modules_only=True)
        if self.frozen or not self.compiled:
            return
        for scope in [*self.all, self.scopes[0]]:
            calls = [(callee, span) for callee, span in scope.calls if callee in self.compiled]
            if not calls or scope.escapes(self.compiled) or self._reaches_backward(scope):
                continue
            for callee, where in calls:
                text = self.message.format(callee=callee)
                self.ctx.emit(self.make_finding(self.ctx.file.display, where(), text, Confidence.LIKELY,
                                                None, "cudagraph-pending-backward", target=self.ctx.target_torch))
