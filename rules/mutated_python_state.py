from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Assigned, content_nodes, dotted, Kind, Rule

from ._hop import hop_bodies, in_hop_body

EVERY_CALL = "the function recompiles on every call"
# A dict filled by key (a cache): its keys are guarded, so only a new key fails a guard (timm's
# `attention_bias_cache`: one recompile over five calls, measured on torch 2.13).
NEW_KEY = ("the function recompiles when this adds a key Dynamo has not seen (a dict's keys are guarded); "
           "once the keys stop changing, calls hit the cache")
KEYED_METHODS = frozenset({"setdefault", "update"})
MUTATING_METHODS = frozenset(
    {"append", "extend", "insert", "add", "update", "setdefault", "pop", "popitem", "clear",
     "remove", "discard"}
)
CONTAINER_FACTORIES = frozenset(
    {"list", "dict", "set", "collections.defaultdict", "collections.OrderedDict", "collections.deque",
     "collections.Counter"}
)


def _is_container(value: Assigned, resolve) -> bool:  # type: ignore[no-untyped-def]
    expr = value.expr
    if isinstance(expr, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
        return True
    return isinstance(expr, cst.Call) and resolve(expr.func) in CONTAINER_FACTORIES


def _mentions(expr: cst.BaseExpression, target: str) -> bool:
    """Whether `expr` reads `target` (a dotted name such as `self.step` or `STEP`)."""
    last = target.rpartition(".")[2]  # an Attribute's dotted name ends with its attr: asked only then
    for node in content_nodes(expr):
        kind = node.__class__  # one lookup, not isinstance on libcst's ABCs (a lazy node answers it too)
        if kind is cst.Name and node.value == target:  # type: ignore[attr-defined]
            return True
        if kind is cst.Attribute and node.attr.value == last and dotted(node) == target:  # type: ignore[attr-defined]
            return True
    return False


class MutatedPythonState(Rule):
    """## What it does
    Finds Python state that a compiled region changes on every call: a counter on the module
    (`self.calls += 1`), a `global` updated in place, or a module-level or attribute list/dict
    that grows (`SEEN.append(...)`, `self.history.append(...)`).

    ## Why is this bad?
    Dynamo does not trace Python ints and containers into the graph: it bakes their current
    value in and guards on it (`self.calls == 3`, `len(G['SEEN']) == 1`). The update makes that
    guard fail on the next call, so the function recompiles every time; after
    `recompile_limit` (8) compiles, Dynamo gives up and runs it eagerly for good.

    ## How to fix
    Keep counters in tensors (`self.register_buffer("calls", torch.zeros((), dtype=torch.long))`
    and `self.calls += 1`), or move the bookkeeping out of the compiled function (count in the
    training loop). Log into a list outside the compiled code.

    ## When it is fine
    Assigning the same constant each call, or storing a tensor on the module (`self.last = x`):
    neither changes a guarded value. A cache dict filled by key (`self.cache[key] = t`) only
    recompiles while it gains keys: the message says so.

    ## Dynamo says
    `Recompiling function forward ... triggered by the following guard failure(s): self.calls == 0`;
    after 8 compiles, `torch._dynamo hit config.recompile_limit (8)` (GB0039 `Dynamo recompile
    limit exceeded`).
    """

    code = "BL201"
    name = "mutated-python-state"
    stage = Stage.GUARDS
    message = "{what} in {region} changes Python state that Dynamo guards on: {effect}"
    help = (
        "keep the counter in a tensor buffer (register_buffer + in-place add), or move the "
        "bookkeeping out of the compiled code"
    )
    dynamo_says = {"recompile": "a guard failure (e.g. `self.calls == 0`, `len(self.cache) == 1`); on every call, "
                                "`hit config.recompile_limit (8)` after 8"}
    bad = (
        "import torch\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.calls = 0\n\n    def forward(self, x):\n        self.calls += 1\n        return x * 2\n",
    )
    good = (
        "import torch\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.register_buffer('calls', torch.zeros((), dtype=torch.long))\n\n"
        "    def forward(self, x):\n        self.calls += 1\n        return x * 2\n",
    )

    def _judged_here(self) -> bool:
        """In a higher-order op's body the same mutation is a graph break, BL119's."""
        if not hasattr(self, "_hop_bodies"):
            self._hop_bodies = hop_bodies(self.ctx)
        return not in_hop_body(self.ctx.function, self._hop_bodies)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._check_update(node.target, node)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            name = dotted(target.target)
            if name is not None and _mentions(node.value, name):  # self.step = self.step + 1
                self._check_update(target.target, node)
            elif isinstance(target.target, cst.Subscript):
                # `d[k] = d.get(k, 0) + 1` counts (every call); `d[k] = tensor` fills a cache.
                receiver = dotted(target.target.value)
                counts = receiver is not None and _mentions(node.value, receiver)
                self._check_container(target.target.value, node, "item assignment", keyed=not counts)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in MUTATING_METHODS:
            self._check_container(func.value, node, f"`.{func.attr.value}()`")

    def _check_update(self, target: cst.BaseExpression, node: cst.CSTNode) -> None:
        fn = self.ctx.function
        if fn is None or not self._judged_here():
            return
        if isinstance(target, cst.Name):
            if target.value in fn.global_names:
                self.report(node, confidence=Confidence.CERTAIN, says="recompile", what=f"global `{target.value}` update",
                            effect=EVERY_CALL)
            return
        if not (isinstance(target, cst.Attribute) and _is_self(target.value, fn.self_name)):
            return
        value = self.ctx.value(target)
        if value.kind in (Kind.PYTHON, Kind.SHAPE_INT):
            self.report(node, confidence=Confidence.CERTAIN, says="recompile", what=f"`self.{target.attr.value}` update",
                        effect=EVERY_CALL)
        elif value.kind is Kind.UNKNOWN:
            self.report(node, confidence=Confidence.LIKELY, says="recompile", what=f"`self.{target.attr.value}` update",
                        effect=EVERY_CALL)

    def _check_container(self, receiver: cst.BaseExpression, node: cst.CSTNode, what: str,
                         keyed: bool = False) -> None:
        fn = self.ctx.function
        if fn is None or not self._judged_here():
            return
        keyed = keyed or what.strip("`.()") in KEYED_METHODS
        effect = NEW_KEY if keyed else EVERY_CALL
        project, module = self.ctx.project, self.ctx.module
        resolve = module.imports.resolve
        if isinstance(receiver, cst.Name):
            if fn.binds_locally(receiver.value):
                return
            values = module.assigns.get(receiver.value, [])
            if values and all(_is_container(v, resolve) for v in values):
                self.report(node, confidence=Confidence.CERTAIN, says="recompile",
                            what=f"{what} on module-level `{receiver.value}`", effect=effect)
        elif isinstance(receiver, cst.Attribute) and _is_self(receiver.value, fn.self_name) and fn.class_info:
            values = project.attr_values(fn.class_info, receiver.attr.value)
            if values and all(_is_container(v, k.module.imports.resolve) for k, v in values):
                self.report(node, confidence=Confidence.CERTAIN, says="recompile",
                            what=f"{what} on `self.{receiver.attr.value}`", effect=effect)


def _is_self(expr: cst.BaseExpression, self_name: str | None) -> bool:
    return self_name is not None and isinstance(expr, cst.Name) and expr.value == self_name
