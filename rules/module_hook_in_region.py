from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import ClassInfo, dotted, FileContext, Kind, Rule
from breaklint.versions import Versions, pick

REGISTRATIONS = frozenset(
    {"register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
     "register_full_backward_pre_hook", "register_backward_hook"}
)
BACKWARD = frozenset({"register_full_backward_hook", "register_full_backward_pre_hook", "register_backward_hook"})
# What Dynamo says at a registration, by torch version (measured on 2.11 and 2.13; 2.12 not
# measured: either).
REGISTRATION_SAYS = {"GB0059": Versions(high="2.12"), "GB0467": Versions(low="2.12")}


class ModuleHookInRegion(Rule):
    """## What it does
    Finds module hooks that break compiled code: a hook registered inside a compiled region
    (`self.proj.register_forward_hook(...)` in `forward`), and a call, inside a region, of a
    submodule that has a backward hook (`self.proj.register_full_backward_hook(...)` in
    `__init__`, then `self.proj(x)` in `forward`).

    ## Why is this bad?
    Registering a hook mutates the module's hook dicts, which Dynamo cannot replay from a graph:
    it breaks the graph there, and the handle it returns cannot cross the break (`handle.remove()`
    then makes Dynamo skip the function). A module-level backward hook needs the backward pass to
    call Python at that module's boundary: AOTAutograd builds one backward graph for the region,
    so Dynamo breaks the graph around the hooked submodule instead.

    ## How to fix
    Register hooks once, outside the compiled code (in `__init__` or before `torch.compile`).
    For backward hooks on submodules, hook tensors instead (`y.register_hook(...)` is traced) or
    enable compiled autograd (`torch._dynamo.config.compiled_autograd = True`). A backward hook
    on the compiled module itself is fine.

    ## When it is fine
    Forward hooks registered outside the region are traced; hooks on the top-level compiled
    module run outside the graph.

    ## Dynamo says
    `setattr() on unsupported type` (GB0467, 2.13) at the registration; `Module-level backwards
    hooks require compiled autograd.` (GB0083) at the hooked call.

    ## Versions
    Every torch version breaks at a registration; Dynamo's words there changed: `Failed to trace
    builtin operator` (GB0059) on 2.11, `setattr() on unsupported type` (GB0467) on 2.13. For
    2.12, not measured, the finding quotes both.
    """

    code = "BL302"
    name = "module-hook-in-region"
    stage = Stage.AOT_AUTOGRAD
    message = "{what} in {region} forces a graph break"
    help = "register hooks outside the compiled code; for backward hooks, hook tensors (y.register_hook) or use compiled autograd"
    dynamo_says = {
        "GB0467": "setattr() on unsupported type",
        "GB0083": "Module-level backwards hooks require compiled autograd.",
        "GB0059": "Failed to trace builtin operator",
    }
    bad = (
        "import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.proj = nn.Linear(8, 8)\n"
        "        self.proj.register_full_backward_hook(lambda m, gi, go: None)\n\n"
        "    def forward(self, x):\n        return self.proj(x)\n",
    )
    good = (
        "import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.proj = nn.Linear(8, 8)\n"
        "        self.proj.register_forward_hook(lambda m, i, o: o)\n\n"
        "    def forward(self, x):\n        return self.proj(x)\n",
    )

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._hooked: dict[ClassInfo, set[str]] = {}
        self._module_hooked: set[str] | None = None
        self._registers: bool | None = None  # whether this file's text names a backward-hook registration

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in REGISTRATIONS:
            receiver = self.ctx.value(func.value)
            if receiver.kind in (Kind.MODULE, Kind.UNKNOWN):
                confidence = Confidence.CERTAIN if receiver.kind is Kind.MODULE else Confidence.LIKELY
                self.report(node, confidence=confidence, says=pick(REGISTRATION_SAYS, self.ctx.target_torch),
                            what=f"`.{func.attr.value}()`")
            return
        name = _as_self(dotted(func), self.ctx.function.self_name if self.ctx.function else None)
        if name is not None and name in self._backward_hooked():
            self.report(node, confidence=Confidence.CERTAIN, says="GB0083",
                        what=f"calling `{dotted(func)}`, which has a backward hook,")

    def _backward_hooked(self) -> set[str]:
        """`self.<attr>` and module-level names that get a backward hook registered on them."""
        fn = self.ctx.function
        cls = fn.class_info if fn is not None else None
        found: set[str] = set()
        if self._registers is None:
            self._registers = any(name in self.ctx.file.content.text for name in BACKWARD)
        registers = self._registers
        if cls is not None:
            if cls not in self._hooked:
                # A class of this file registers nothing when its text names no registration:
                # its methods' calls are not read (under --scope all, every class's methods).
                self._hooked[cls] = {
                    receiver for klass in self.ctx.project.mro(cls)
                    if registers or klass.module is not self.ctx.module
                    for method in klass.methods.values()
                    for receiver in _hooked_receivers(method.calls, method.self_name)
                }
            found = self._hooked[cls]
        if self._module_hooked is None and not registers:
            self._module_hooked = set()  # no registration in the file: no module-level tree to read
        if self._module_hooked is None:
            calls = [small.value for statement in self.ctx.file.content.tree.body
                     if isinstance(statement, cst.SimpleStatementLine)
                     for small in statement.body if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)]
            self._module_hooked = _hooked_receivers(calls, None)
        return found | self._module_hooked


def _as_self(name: str | None, self_name: str | None) -> str | None:
    """`self.proj` for `me.proj` when the method calls its first parameter `me`."""
    if name is None or self_name is None or self_name == "self":
        return name
    head, dot, rest = name.partition(".")
    return f"self.{rest}" if head == self_name and dot else name


def _hooked_receivers(calls: list[cst.Call], self_name: str | None) -> set[str]:
    """Receivers of backward-hook registrations (`self.proj`, `encoder`), but not the module
    itself: hooks on the compiled module run outside its graph."""
    found = set()
    for call in calls:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in BACKWARD:
            name = _as_self(dotted(func.value), self_name)
            if name is not None and name != "self":
                found.add(name)
    return found
