"""BL603 compiled-ddp-wrapper: `torch.compile(DDP(model))`, whose calls make Dynamo trace DDP's forward."""

from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Severity, Stage
from breaklint.rule import FileContext, Rule, dotted

from ._ddp import DDP_NAMES, Bindings, Scope
from ._support import compiled_by


class CompiledDdpWrapper(Rule):
    """## What it does
    Finds calls of a compiled `DistributedDataParallel` wrapper: `model = torch.compile(DDP(net))`
    (or `ddp = DDP(net)` then `torch.compile(ddp)`, or a compile helper of the file's,
    `maybe_compile(DDP(net))`), then `model(x)`.

    ## Why is this bad?
    Compiling the wrapper makes Dynamo trace DDP's own `forward`, which it cannot: it breaks three
    times there (DDP's logger call, and twice at its `_inside_ddp_forward` context manager, a
    function Dynamo skips), compiles the pieces in between and then the inner module's forward as
    a frame of its own. The inner graph is the same as with the other order (DDPOptimizer splits
    it at DDP's buckets either way, measured on torch 2.13), so the breaks buy nothing: they are
    extra frames with guards to check on every call, and noise in every graph-break report.

    ## How to fix
    Compile the module and wrap the compiled one: `DDP(torch.compile(net))`, or `net.compile()`
    before `DDP(net)` (which keeps the state-dict keys free of `_orig_mod.`).

    ## When it is fine
    When the few microseconds of the breaks' guards do not matter next to the step; the graphs the
    model trains with are the same.

    ## Dynamo says
    `Unsupported method call` (GB0156: `Logger.set_runtime_stats_and_log`), `Attempted to call
    function marked as skipped` (GB0007: `DistributedDataParallel._inside_ddp_forward`).
    """

    code = "BL603"
    name = "compiled-ddp-wrapper"
    stage = Stage.DISTRIBUTED
    severity = Severity.INFO
    message = ("`{name}` is torch.compile of a DDP wrapper: each call makes Dynamo trace DDP's own forward,"
               " which breaks 3 times before the inner module's forward compiles on its own")
    help = "compile the module and wrap the compiled one: DDP(torch.compile(net)), or net.compile() before DDP(net)"
    dynamo_says = {
        "GB0156": "Unsupported method call",
        "GB0007": "Attempted to call function marked as skipped",
    }
    bad = ("import torch\nfrom torch import nn\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n"
           "class Net(nn.Module):\n    def forward(self, x):\n        return x + 1\n\n"
           "model = torch.compile(DDP(Net()))\nmodel(x)\n",)
    good = ("import torch\nfrom torch import nn\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n"
            "class Net(nn.Module):\n    def forward(self, x):\n        return x + 1\n\n"
            "model = DDP(torch.compile(Net()))\nmodel(x)\n",)
    file_scope = True  # the compile and the calls are outside compiled regions

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.bindings = Bindings()
        self.wrappers: set[tuple[Scope, str]] = set()  # names bound to torch.compile of a DDP module

    @classmethod
    def reads_whole_file(cls, text: str) -> bool:
        return "DistributedDataParallel" in text

    def _is_ddp(self, expr: cst.BaseExpression) -> bool:
        return (isinstance(expr, cst.Call) and isinstance(expr.func, (cst.Name, cst.Attribute))
                and self.ctx.resolve(expr.func) in DDP_NAMES)

    def file_visit_Assign(self, node: cst.Assign) -> None:
        self.bindings.note_assign(node, self.ctx)
        value = node.value
        target = compiled_by(value, self.ctx)
        scope = self.ctx.function
        if target is not None and self._is_ddp(self.bindings.value(target, scope)):
            self.wrappers.update(Bindings.key(n, scope) for t in node.targets if (n := dotted(t.target)) is not None)

    def file_visit_Call(self, node: cst.Call) -> None:
        name = dotted(node.func)
        if name is not None and self.bindings.bound(name, self.ctx.function) in self.wrappers:
            self.ctx.emit(self.make_finding(
                self.ctx.file.display, self.ctx.file.span(node), self.message.format(name=name),
                Confidence.CERTAIN, says=("GB0156", "GB0007"), target=self.ctx.target_torch,
            ))
