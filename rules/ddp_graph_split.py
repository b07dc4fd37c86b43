"""BL601 ddp-graph-split: a compiled module wrapped in DDP, split by DDPOptimizer at DDP's buckets."""

from __future__ import annotations

from typing import Callable

import libcst as cst

from breaklint.finding import Confidence, Severity, Span, Stage
from breaklint.rule import FileContext, Rule, dotted

from ._ddp import DDP_NAMES, Bindings, Scope, bucket_count, class_bytes, ddp_module, keyword, number, without_moves
from ._support import compiled_by

DEFAULT_BUCKET_CAP_MB = 25  # DistributedDataParallel's bucket_cap_mb default
FIRST_BUCKET_BYTES = 1024 * 1024  # torch.distributed._DEFAULT_FIRST_BUCKET_BYTES (torch 2.13)
MIB = 1024 * 1024


class DdpGraphSplit(Rule):
    """## What it does
    Says into how many graphs Dynamo's DDPOptimizer will cut a compiled module wrapped in
    `DistributedDataParallel`. It finds `DDP(torch.compile(model))`, `torch.compile(DDP(model))`
    and a module compiled in place with `model.compile()`, whose parameter sizes are known from
    its `__init__` (literal `nn.Linear`, `nn.Embedding`, `nn.LayerNorm` layers, also in
    `nn.Sequential`/`nn.ModuleList`).

    ## Why is this bad?
    DDP all-reduces gradients bucket by bucket (`bucket_cap_mb`, 25 MiB by default; the first
    bucket, the last layers, closes at 1 MiB). So that a bucket's all-reduce can start while the
    backward of earlier layers still runs, DDPOptimizer (`torch._dynamo.config.optimize_ddp`, on
    by default) cuts the compiled graph at the bucket boundaries and compiles each piece on its
    own: Inductor cannot fuse across a cut, and every piece is a graph of its own. The count is
    predicted by DDPOptimizer's own rule (parameters walked from the last layer backwards, a new
    graph once a bucket is full), assuming `forward` uses the layers in the order `__init__`
    defines them, in float32.

    ## How to fix
    Nothing, if the overlap is what you want: it is the point of the split. To trade overlap for
    fewer, larger graphs raise `bucket_cap_mb` (a larger model keeps more fusion per graph), or
    set `torch._dynamo.config.optimize_ddp = False` (one graph, gradients all-reduced after the
    whole backward: no overlap).

    ## When it is fine
    On one process (no communication to overlap) use the model without DDP; on several the split
    is usually the right trade. `breaklint confirm --nproc N` shows the graphs each rank compiled.

    ## Dynamo says
    `DDPOptimizer used bucket cap {bytes} and created {n} buckets` (its info log,
    `torch._dynamo.backends.distributed`).
    """

    code = "BL601"
    name = "ddp-graph-split"
    stage = Stage.DISTRIBUTED
    severity = Severity.INFO
    message = ("`{cls}` ({mib} MiB of parameters) is compiled and wrapped in DDP: DDPOptimizer splits its graph into"
               " {count} subgraphs at DDP's gradient buckets (bucket_cap_mb={cap}, the first bucket 1 MiB), and"
               " Inductor fuses only within each")
    help = "the split buys all-reduce/backward overlap; for fewer graphs raise bucket_cap_mb, or set torch._dynamo.config.optimize_ddp = False (no overlap)"
    dynamo_says = {"split": "DDPOptimizer used bucket cap {bytes} and created {n} buckets"}
    bad = (
        "import torch\nfrom torch import nn\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.a = nn.Linear(1024, 1024)\n        self.b = nn.Linear(1024, 1024)\n\n"
        "    def forward(self, x):\n        return self.b(self.a(x))\n\n"
        "model = DDP(torch.compile(Net()))\n",
    )
    good = (
        "import torch\nfrom torch import nn\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.a = nn.Linear(64, 64)\n\n    def forward(self, x):\n        return self.a(x)\n\n"
        "model = DDP(torch.compile(Net()))  # one bucket: one graph\n",
    )
    file_scope = True  # DDP wraps and compiles outside compiled regions

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.bindings = Bindings()
        # DDP calls, with the name each is bound to, where (its span, when reported) and the
        # function it is in
        self.wraps: list[tuple[cst.Call, str | None, Callable[[], Span], Scope]] = []

    @classmethod
    def reads_whole_file(cls, text: str) -> bool:
        return "DistributedDataParallel" in text

    def file_visit_Assign(self, node: cst.Assign) -> None:
        self.bindings.note_assign(node, self.ctx)
        if isinstance(node.value, cst.Call) and self._is_ddp(node.value):
            self.wraps.append((node.value, dotted(node.targets[0].target), self.ctx.file.span_later(node.value),
                               self.ctx.function))

    def file_visit_Call(self, node: cst.Call) -> None:
        self.bindings.note_call(node, self.ctx)
        if self._is_ddp(node) and not any(wrap[0] is node for wrap in self.wraps):
            self.wraps.append((node, None, self.ctx.file.span_later(node), self.ctx.function))

    def _is_ddp(self, call: cst.Call) -> bool:
        return isinstance(call.func, (cst.Name, cst.Attribute)) and self.ctx.resolve(call.func) in DDP_NAMES

    def end_file(self) -> None:
        if self.bindings.optimize_ddp_off:
            return
        for call, bound_to, where, scope in self.wraps:
            wrapped = ddp_module(call)
            if wrapped is None:
                continue
            inner = without_moves(self.bindings.value(without_moves(wrapped, self.ctx), scope), self.ctx)
            compiled = (id(call) in self.bindings.compiled_calls or self.bindings.is_compiled(bound_to, scope)
                        or self.bindings.is_compiled(dotted(wrapped), scope))
            target = compiled_by(inner, self.ctx)
            if target is not None:
                compiled = True
                inner = without_moves(self.bindings.value(without_moves(target, self.ctx), scope), self.ctx)
            if not compiled or not isinstance(inner, cst.Call) or dotted(inner.func) not in self.ctx.module.classes:
                continue
            cap = number(keyword(call, "bucket_cap_mb")) if keyword(call, "bucket_cap_mb") is not None else DEFAULT_BUCKET_CAP_MB
            if cap is None or cap < 1:  # not a literal; below 1 MiB DDPOptimizer refuses to start
                continue
            cls = dotted(inner.func) or ""
            units = class_bytes(self.ctx.module.classes[cls].node, self.ctx)
            if not units:
                continue
            count = bucket_count(units, int(cap * MIB), FIRST_BUCKET_BYTES)
            if count < 2:
                continue
            self.ctx.emit(self.make_finding(
                self.ctx.file.display, where(),
                self.message.format(cls=cls, mib=f"{sum(units) / MIB:.1f}", count=count, cap=f"{cap:g}"),
                Confidence.LIKELY, target=self.ctx.target_torch,
            ))
