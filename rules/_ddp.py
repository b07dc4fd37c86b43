"""What the DDP rules (BL601, BL603) share: DDP's names, how a file binds and compiles its
modules, and the parameter bytes of a module class built from literal layers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Optional

import libcst as cst

from breaklint.rule import FileContext, FunctionInfo, dotted

from ._support import compiled_by

DDP_NAMES = frozenset({"torch.nn.parallel.DistributedDataParallel",
                       "torch.nn.parallel.distributed.DistributedDataParallel"})
CONFIG_PREFIXES = ("torch._dynamo.config.", "torch.compiler.config.")
FLOAT32 = 4  # bytes; a layer given another dtype is not sized
# Layers without parameters (anything else not sized below makes the class unknown).
PARAMETERLESS = frozenset(f"torch.nn.{name}" for name in (
    "ReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "Softmax", "Dropout", "Identity", "Flatten", "LeakyReLU", "Mish"))
CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential"})


Scope = Optional[FunctionInfo]  # the function a name is bound in; None: the module (or a class body)


def scoped(name: str, scope: Scope) -> Iterator[tuple[Scope, str]]:
    """Where a read of `name` in `scope` may find its binding, innermost first: the function,
    those it is nested in, the module. An attribute (`self.model`) is the file's, whichever
    method bound it."""
    if "." not in name:
        while scope is not None:
            yield scope, name
            scope = scope.parent
    yield None, name


@dataclass
class Bindings:
    """A file's plain `name = value` bindings, each in its function (the last one wins: the rules
    read what a wrap or a compile was given; two functions that both bind `model` keep their
    own), and the names it compiles (`torch.compile(name)`, `name.compile()`)."""

    values: dict[tuple[Scope, str], cst.BaseExpression] = field(default_factory=dict)
    compiled: set[tuple[Scope, str]] = field(default_factory=set)
    compiled_calls: set[int] = field(default_factory=set)  # id() of calls passed to torch.compile
    optimize_ddp_off: bool = False

    def note_assign(self, node: cst.Assign, ctx: FileContext) -> None:
        for target in node.targets:
            name = dotted(target.target)
            if name is not None:
                self.values[self.key(name, ctx.function)] = node.value
            qualified = ctx.resolve(target.target) if isinstance(target.target, cst.Attribute) else None
            if qualified in {p + "optimize_ddp" for p in CONFIG_PREFIXES} and isinstance(node.value, cst.Name) \
                    and node.value.value == "False":
                self.optimize_ddp_off = True

    def note_call(self, node: cst.Call, ctx: FileContext) -> None:
        arg = compiled_by(node, ctx)
        if arg is not None:
            self.compiled_calls.add(id(arg))
            name = dotted(arg)
            if name is not None:
                self.compiled.add(self.bound(name, ctx.function))
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value == "compile":
            name = dotted(node.func.value)
            if name is not None:
                self.compiled.add(self.bound(name, ctx.function))

    @staticmethod
    def key(name: str, scope: Scope) -> tuple[Scope, str]:
        """Where a binding of `name` made in `scope` is kept."""
        return next(scoped(name, scope))

    def bound(self, name: str, scope: Scope) -> tuple[Scope, str]:
        """The binding a read of `name` in `scope` finds (its own scope's when there is none)."""
        return next((key for key in scoped(name, scope) if key in self.values), self.key(name, scope))

    def value(self, expr: cst.BaseExpression, scope: Scope) -> cst.BaseExpression:
        """The expression a name read in `scope` was bound to (two steps at most), else the
        expression itself."""
        for _ in range(2):
            name = dotted(expr)
            found = self.values.get(self.bound(name, scope)) if name is not None else None
            if found is None:
                break
            expr = found
        return expr

    def is_compiled(self, name: str | None, scope: Scope) -> bool:
        """Whether the binding a read of `name` in `scope` finds is one the file compiles."""
        return name is not None and self.bound(name, scope) in self.compiled


def without_moves(expr: cst.BaseExpression, ctx: FileContext) -> cst.BaseExpression:
    """`Net().cuda()`, `Net().to(device)`, `Net().to("cuda")` as `Net()`: a move keeps the
    parameter sizes (a `.to(...)` given a torch dtype does not, and is kept)."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in ("cuda", "to"):
        if expr.func.attr.value == "to" and any(
                isinstance(a.value, (cst.Name, cst.Attribute)) and (ctx.resolve(a.value) or "").startswith("torch.")
                or a.keyword is not None and a.keyword.value == "dtype" for a in expr.args):
            break
        expr = expr.func.value
    return expr


def ddp_module(call: cst.Call) -> cst.BaseExpression | None:
    """What a `DistributedDataParallel(...)` call wraps (its `module`)."""
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            return arg.value
        if arg.keyword is not None and arg.keyword.value == "module":
            return arg.value
    return None


def keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def number(expr: cst.BaseExpression | None) -> float | None:
    if isinstance(expr, cst.Integer):
        return int(expr.value)
    if isinstance(expr, cst.Float):
        return float(expr.value)
    return None


def layer_bytes(expr: cst.BaseExpression, ctx: FileContext) -> list[int] | None:
    """The parameter bytes of each op-sized unit a layer expression builds (one per Linear,
    Embedding or LayerNorm: DDPOptimizer buckets per graph node, and each of them is one node),
    in order; None when it builds something not sized here."""
    if not isinstance(expr, cst.Call):
        return None
    name = ctx.resolve(expr.func) if isinstance(expr.func, (cst.Name, cst.Attribute)) else None
    if name is None:
        return None
    name = name.replace("torch.nn.modules.linear.", "torch.nn.")
    if name in PARAMETERLESS:
        return []
    if name in CONTAINERS:
        return _container_bytes(expr, ctx)
    positional = [a.value for a in expr.args if a.keyword is None and not a.star]
    if any(a.star for a in expr.args) or keyword(expr, "dtype") is not None:
        return None
    sizes = [number(v) for v in positional]
    if any(s is None or s != int(s) for s in sizes):
        return None
    ints = [int(s) for s in sizes if s is not None]
    bias = keyword(expr, "bias")
    with_bias = not (isinstance(bias, cst.Name) and bias.value == "False")
    if bias is not None and not (isinstance(bias, cst.Name) and bias.value in ("True", "False")):
        return None
    if name == "torch.nn.Linear" and len(ints) == 2:
        return [(ints[0] * ints[1] + (ints[1] if with_bias else 0)) * FLOAT32]
    if name == "torch.nn.Embedding" and len(ints) == 2 and len(expr.args) == 2:
        return [ints[0] * ints[1] * FLOAT32]
    if name == "torch.nn.LayerNorm" and len(ints) == 1 and len(expr.args) == 1:
        return [2 * ints[0] * FLOAT32]
    return None


def _container_bytes(call: cst.Call, ctx: FileContext) -> list[int] | None:
    """nn.Sequential(a, b, ...), nn.Sequential(*[e for _ in range(k)]), nn.ModuleList([a, b]),
    nn.ModuleList(e for _ in range(k))."""
    found: list[int] = []
    for arg in call.args:
        if arg.keyword is not None:
            return None
        value = arg.value
        if isinstance(value, (cst.List, cst.Tuple)) and arg.star != "**":
            parts = [layer_bytes(e.value, ctx) for e in value.elements]
        elif isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            count = _range_count(value.for_in)
            one = layer_bytes(value.elt, ctx)
            parts = [one] * count if count is not None else [None]
        elif not arg.star:
            parts = [layer_bytes(value, ctx)]
        else:
            return None
        for part in parts:
            if part is None:
                return None
            found.extend(part)
    return found


def _range_count(for_in: cst.CompFor) -> int | None:
    """k in `for _ in range(k)` (a literal k, one `for`, no `if`)."""
    if for_in.inner_for_in is not None or for_in.ifs:
        return None
    it = for_in.iter
    if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range" and len(it.args) == 1:
        count = number(it.args[0].value)
        return int(count) if count is not None else None
    return None


def class_bytes(node: cst.ClassDef, ctx: FileContext) -> list[int] | None:
    """The parameter units of a module class whose `__init__` assigns literal layers to `self.x`
    (in the order it assigns them); None when any assigned call is not sized, or there is none."""
    init = next((s for s in node.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
    if init is None or not isinstance(init.body, cst.IndentedBlock):
        return None
    found: list[int] = []
    for statement in init.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            return None  # a branch or a loop: which layers exist is not known statically
        for small in statement.body:
            if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
                if not all(isinstance(t.target, cst.Attribute) for t in small.targets):
                    return None
                sized = layer_bytes(small.value, ctx)
                if sized is None:
                    return None
                found.extend(sized)
            elif isinstance(small, cst.Expr) and not _is_super_init(small.value):
                return None
    return found


def _is_super_init(expr: cst.BaseExpression) -> bool:
    return (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "__init__"
            and isinstance(expr.func.value, cst.Call) and dotted(expr.func.value.func) == "super")


def bucket_count(units: list[int], cap_bytes: int, first_cap_bytes: int) -> int:
    """How many buckets (subgraphs) DDPOptimizer makes (torch/_dynamo/backends/distributed.py,
    DDPOptimizer.compile_fn): walking the graph's nodes backwards, a new bucket starts at the
    node after the current one reached the cap (the first bucket's cap is DDP's first-bucket
    size, 1 MiB, when smaller)."""
    count, size = 1, 0
    for unit in reversed(units):
        if size >= cap_bytes or (count == 1 and size >= min(first_cap_bytes, cap_bytes)):
            count, size = count + 1, 0
        size += unit
    return count
