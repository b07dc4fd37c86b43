"""BL604 fsdp-sharded-call: a compiled module's forward calls a submodule fully_shard wrapped."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from breaklint.finding import Confidence, Severity, Stage
from breaklint.rule import FileContext, Rule, dotted

from ._ddp import Bindings
from ._support import compiled_by

FULLY_SHARD = frozenset({"torch.distributed.fsdp.fully_shard", "torch.distributed._composable.fsdp.fully_shard",
                         "torch.distributed.fsdp._fully_shard.fully_shard",
                         "torch.distributed.fsdp._fully_shard._fully_shard.fully_shard"})


@dataclass
class _Forward:
    """The calls of one class's `forward`: `self.attr(...)`, and `v(...)` for `v` a loop
    variable over `self.attr` (attr, call, in a loop)."""

    calls: list[tuple[str, cst.Call, bool]] = field(default_factory=list)
    loops: dict[str, str] = field(default_factory=dict)  # loop variable -> the self attribute it walks


class FsdpShardedCall(Rule):
    """## What it does
    Finds, in the `forward` of a module that is compiled whole (`torch.compile(model)`,
    `model.compile()`), the calls of its submodules that the same file shards with FSDP2's
    `fully_shard` (`fully_shard(model.block)`, or every element of `model.layers` in a loop).

    ## Why is this bad?
    FSDP2 runs its all-gather and reshard in hooks around each sharded module's call, and wraps
    those hooks in `torch._dynamo.disable` (torch 2.13). Dynamo breaks the graph at every call of a
    sharded submodule; when the calls are in a loop (`for layer in self.layers`), the break is in
    a loop and Dynamo skips the whole `forward`, which then runs eagerly.

    ## How to fix
    Compile each sharded block instead of the root: replace it with its compiled wrapper before
    sharding it (`model.layers[i] = torch.compile(block)`, then `fully_shard(model.layers[i])`;
    measured: one graph per block, no break), and shard the root without compiling it.

    ## When it is fine
    When only the root is sharded (`fully_shard(model)` alone traces without a break).

    ## Dynamo says
    `Attempted to call function marked as skipped` (GB0007: `disable`, "skipping FSDP hooks"); in
    a loop `graph break in loop` (GB7000).
    """

    code = "BL604"
    name = "fsdp-sharded-call"
    stage = Stage.DISTRIBUTED
    message = ("`self.{attr}` is sharded by fully_shard and called in compiled `{cls}.forward`: FSDP2's hooks are"
               " Dynamo-disabled, so the graph breaks at the call")
    help = "compile each sharded block (model.layers[i] = torch.compile(block); fully_shard(model.layers[i])) instead of the root"
    dynamo_says = {
        "GB0007": "Attempted to call function marked as skipped",
        "GB7000": "graph break in loop",
    }
    bad = ("import torch\nfrom torch import nn\nfrom torch.distributed.fsdp import fully_shard\n\n"
           "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.a = nn.Linear(8, 8)\n\n"
           "    def forward(self, x):\n        return self.a(x)\n\n"
           "model = Net()\nfully_shard(model.a)\nfully_shard(model)\nmodel = torch.compile(model)\n",)
    good = ("import torch\nfrom torch import nn\nfrom torch.distributed.fsdp import fully_shard\n\n"
            "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.a = nn.Linear(8, 8)\n\n"
            "    def forward(self, x):\n        return self.a(x)\n\n"
            "model = Net()\nfully_shard(model)\nmodel = torch.compile(model)\n",)
    file_scope = True  # the sharding and the compile are outside compiled regions

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.bindings = Bindings()
        self.sharded: set[tuple[str, str]] = set()  # (root's class, attribute) that fully_shard wraps
        self.compiled: set[str] = set()  # classes of the roots compiled whole
        self.loops: list[tuple[str | None, str | None]] = []  # (loop variable, what it iterates)
        self.classes: list[str] = []
        self.forwards: dict[str, _Forward] = {}
        self.in_forward: list[_Forward | None] = []

    @classmethod
    def reads_whole_file(cls, text: str) -> bool:
        return "fully_shard" in text

    def file_visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node.name.value)

    def file_leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()

    def file_visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        forward = _Forward() if self.classes and node.name.value == "forward" else None
        if forward is not None:
            self.forwards[self.classes[-1]] = forward
        self.in_forward.append(forward)

    def file_leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.in_forward.pop()

    def file_visit_For(self, node: cst.For) -> None:
        variable = node.target.value if isinstance(node.target, cst.Name) else None
        self.loops.append((variable, dotted(node.iter)))
        forward = self.in_forward[-1] if self.in_forward else None
        walked = dotted(node.iter) or ""
        if forward is not None and variable and walked.startswith("self.") and walked.count(".") == 1:
            forward.loops[variable] = walked.removeprefix("self.")

    def file_leave_For(self, original_node: cst.For) -> None:
        self.loops.pop()

    def file_leave_Assign(self, original_node: cst.Assign) -> None:
        # Bound once the value is read: in `model = torch.compile(model)` the compile sees `Net()`.
        self.bindings.note_assign(original_node, self.ctx)

    def _class_of(self, name: str | None) -> str | None:
        """The class a name is bound to here (`model = Net()`), when it is one of this file's."""
        built = self.bindings.value(cst.Name(name), self.ctx.function) if name else None
        cls = dotted(built.func) if isinstance(built, cst.Call) else None
        return cls if cls in self.ctx.module.classes else None

    def file_visit_Call(self, node: cst.Call) -> None:
        self.bindings.note_call(node, self.ctx)
        target = compiled_by(node, self.ctx)
        if target is not None:
            compiled = self._class_of(dotted(target))
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value == "compile":
            compiled = self._class_of(dotted(node.func.value))
        else:
            compiled = None
        if compiled is not None:
            self.compiled.add(compiled)
        forward = self.in_forward[-1] if self.in_forward else None
        callee = dotted(node.func) or ""
        if forward is not None:
            if callee.startswith("self.") and callee.count(".") == 1:
                forward.calls.append((callee.removeprefix("self."), node, False))
            elif callee in forward.loops:
                forward.calls.append((forward.loops[callee], node, True))
            return
        if isinstance(node.func, (cst.Name, cst.Attribute)) and self.ctx.resolve(node.func) in FULLY_SHARD and node.args:
            target = dotted(node.args[0].value) or ""
            iterated = next((it for var, it in reversed(self.loops) if var == target), None)
            if iterated is not None:
                target = iterated  # fully_shard(layer) for layer in model.layers
            root, _, attr = target.partition(".")
            cls = self._class_of(root)
            if attr and "." not in attr and cls is not None:
                self.sharded.add((cls, attr))

    def end_file(self) -> None:
        for cls, attr in sorted(self.sharded):
            forward = self.forwards.get(cls) if cls in self.compiled else None
            if forward is None:
                continue
            for called, call, in_loop in forward.calls:
                if called != attr:
                    continue
                text = self.message.format(attr=attr, cls=cls)
                says: tuple[str, ...] = ("GB0007",)
                severity = None
                if in_loop:
                    text += "; in a loop, so Dynamo skips the whole forward"
                    says, severity = ("GB0007", "GB7000"), Severity.ERROR
                self.ctx.emit(self.make_finding(self.ctx.file.display, self.ctx.file.span(call), text,
                                                Confidence.LIKELY, says=says, target=self.ctx.target_torch,
                                                severity=severity))
