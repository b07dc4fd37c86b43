from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
# visit: one frame per level, deep code cannot overflow the stack
from breaklint.rule import ClassInfo, CompileSite, dotted, FileContext, FunctionInfo, ModuleIndex, Rule, visit



class PerInstanceSpecialization(Rule):
    """## What it does
    Finds an integer attribute of a module (`self.layer_idx`, set from a constructor argument)
    read in a `forward` that is compiled once per instance, when the instances are built in a
    loop with different values: `[torch.compile(Block(i)) for i in range(n)]`, or
    `for block in blocks: block.compile()` over `Block(layer_idx=i)` instances.

    ## Why is this bad?
    Dynamo treats integer attributes of an `nn.Module` as constants and guards on them
    (`self.layer_idx == 0`). All instances share one code object, so each new value fails the
    guard and recompiles the same `forward`; after `recompile_limit` (8) instances Dynamo gives
    up and runs the remaining layers eagerly.

    ## How to fix
    Compile the parent model once (its layers are inlined into one graph), keep per-layer
    numbers in a buffer (`self.register_buffer("layer_idx", torch.tensor(i))`), or set
    `torch._dynamo.config.allow_unspec_int_on_nn_module = True` so that such ints become
    dynamic. Raising `recompile_limit` only hides the cost.

    ## When it is fine
    Attributes that are equal across instances (a hidden size); a model compiled as a whole.

    ## Dynamo says
    `Recompiling function forward ... triggered by the following guard failure(s):
    self.layer_idx == 0`, then `torch._dynamo hit config.recompile_limit (8)`.
    """

    code = "BL202"
    name = "per-instance-specialization"
    stage = Stage.GUARDS
    message = (
        "`self.{attr}` in {region} is a Python int that differs per instance ({where}); each instance "
        "compiled on its own recompiles `forward`, and after 8 the rest run eagerly"
    )
    help = (
        "compile the parent model once, keep the number in a buffer, or set "
        "torch._dynamo.config.allow_unspec_int_on_nn_module = True"
    )
    dynamo_says = {"recompile": "guard failure per instance (`self.layer_idx == 0`), then `hit config.recompile_limit (8)`"}
    bad = (
        "import torch\nfrom torch import nn\n\nclass Block(nn.Module):\n    def __init__(self, idx):\n"
        "        super().__init__()\n        self.idx = idx\n\n    def forward(self, x):\n"
        "        return x * (self.idx + 1)\n\nblocks = [torch.compile(Block(i)) for i in range(12)]\n",
    )
    good = (
        "import torch\nfrom torch import nn\n\nclass Block(nn.Module):\n    def __init__(self, idx):\n"
        "        super().__init__()\n        self.idx = idx\n\n    def forward(self, x):\n"
        "        return x * (self.idx + 1)\n\nclass Net(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.blocks = nn.ModuleList([Block(i) for i in range(12)])\n\n"
        "    def forward(self, x):\n        for block in self.blocks:\n            x = block(x)\n        return x\n\n"
        "net = torch.compile(Net())\n",
    )

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._varying: dict[tuple[ClassInfo, str], str | None] = {}
        self._reported: set[tuple[FunctionInfo, str]] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        fn = self.ctx.function
        region = self.ctx.region
        if fn is None or region is None or fn.class_info is None or fn.name != "forward":
            return
        if not (isinstance(node.value, cst.Name) and node.value.value == fn.self_name):
            return
        # Only a forward compiled on its own (its own entry point) is specialised per instance;
        # reached from a parent's forward it is inlined into the parent's graph.
        if region.path != (fn.qualname,) or ":" not in region.site or region.site.startswith("config"):
            return
        attr = node.attr.value
        if (fn, attr) in self._reported:
            return
        where = self._varying_construction(fn.class_info, attr)
        if where is not None:
            self._reported.add((fn, attr))
            self.report(node, confidence=Confidence.LIKELY, says="recompile", attr=attr, where=where)

    def _varying_construction(self, cls: ClassInfo, attr: str) -> str | None:
        """Where `cls` is built in a loop with a loop variable passed to the parameter that
        `self.<attr>` is set from, in a file that compiles it; None if nowhere."""
        key = (cls, attr)
        if key not in self._varying:
            self._varying[key] = None
            init = cls.methods.get("__init__")
            param = _source_param(cls, attr, init)
            region = self.ctx.region
            if init is not None and param is not None and region is not None:
                position = _param_position(init, param)
                for site in self.ctx.project.compile_sites_at(region.site):
                    built = _constructions(site, cls, self.ctx)
                    found = _find_varying_call(site.module, built, param, position) if built else None
                    if found is not None:
                        self._varying[key] = found
                        break
        return self._varying[key]


def _source_param(cls: ClassInfo, attr: str, init: FunctionInfo | None) -> str | None:
    """The `__init__` parameter that `self.<attr> = <param>` stores (its only assignment)."""
    if init is None:
        return None
    values = cls.attrs.get(attr, [])
    if len(values) != 1 or not isinstance(values[0].expr, cst.Name):
        return None
    name = values[0].expr.value
    params = init.node.params
    names = [p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]]
    if name not in names or _annotated_other_than_int(init, name):
        return None
    return name


def _annotated_other_than_int(init: FunctionInfo, name: str) -> bool:
    params = init.node.params
    for param in [*params.posonly_params, *params.params, *params.kwonly_params]:
        if param.name.value == name and param.annotation is not None:
            return dotted(param.annotation.annotation) != "int"
    return False


def _param_position(init: FunctionInfo, name: str) -> int | None:
    """Positional index of the parameter in a call (self excluded), or None if keyword-only."""
    params = init.node.params
    positional = [p.name.value for p in [*params.posonly_params, *params.params]][1:]
    return positional.index(name) if name in positional else None


def _constructions(site: CompileSite, cls: ClassInfo, ctx: FileContext) -> set[cst.Call]:
    """The `Cls(...)` calls whose instances the compile site compiles: the target itself
    (`torch.compile(Block(i))`), or what the target name was bound to or iterates over
    (`for block in blocks: block.compile()` with `blocks = [Block(i) for i in ...]`)."""
    module, project = site.module, ctx.project
    found: set[cst.Call] = set()
    pending: list[tuple[cst.BaseExpression, int]] = []
    if not isinstance(site.target, FunctionInfo):
        pending.append((site.target, 0))
    while pending:
        expr, depth = pending.pop()
        if depth > 6:
            continue
        if isinstance(expr, cst.Name):
            for value in project.bound_values(expr.value, site.scope, module):
                pending.append((value.expr, depth + 1))
        elif isinstance(expr, cst.Subscript):
            pending.append((expr.value, depth + 1))
        else:
            for call in _calls_in(expr):
                if project.resolve_class(call.func, module) is cls:
                    found.add(call)
                elif isinstance(call.func, cst.Attribute):  # Block(i).to(device)
                    pending.append((call.func.value, depth + 1))
    return found


def _calls_in(expr: cst.BaseExpression) -> list[cst.Call]:
    found: list[cst.Call] = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            found.append(node)

    visit(expr, _Calls())
    return found


def _find_varying_call(module: ModuleIndex, candidates: set[cst.Call], param: str,
                       position: int | None) -> str | None:
    """`file:line` of one of the candidate constructor calls that sits in a for loop or
    comprehension and passes the loop variable to `param`. The candidates come from the index
    (module-level code as written, not the tree's nodes): a call of the tree is one of them when
    it is written the same."""
    found: list[cst.Call] = []
    code = cst.Module(body=[]).code_for_node
    written = {code(call.with_changes(lpar=(), rpar=())) for call in candidates}

    class _Calls(cst.CSTVisitor):
        def __init__(self) -> None:
            self.loop_names: list[set[str]] = []

        def visit_For(self, node: cst.For) -> None:
            self.loop_names.append(_bound_names(node.target))

        def leave_For(self, original_node: cst.For) -> None:
            self.loop_names.pop()

        # A comprehension's element is visited before its `for` clauses: bind them all up front.
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                names: set[str] = set()
                clause: cst.CompFor | None = node.for_in
                while clause is not None:
                    names |= _bound_names(clause.target)
                    clause = clause.inner_for_in
                self.loop_names.append(names)
            return super().on_visit(node)

        def on_leave(self, original_node: cst.CSTNode) -> None:
            super().on_leave(original_node)
            if isinstance(original_node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                self.loop_names.pop()

        def visit_Call(self, node: cst.Call) -> None:
            if found or not self.loop_names or code(node.with_changes(lpar=(), rpar=())) not in written:
                return
            argument = _argument(node, param, position)
            names = set().union(*self.loop_names)
            if argument is not None and _uses(argument, names):
                found.append(node)

    content = module.file.content  # module-level and helper code: outside the regions
    visit(content.tree, _Calls())
    return f"{module.file.display}:{content.line(found[0])}" if found else None


def _bound_names(target: cst.BaseExpression) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return set().union(*(_bound_names(e.value) for e in target.elements))
    return set()


def _argument(call: cst.Call, param: str, position: int | None) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == param:
            return arg.value
    positional = [a.value for a in call.args if a.keyword is None and a.star == ""]
    if position is not None and position < len(positional):
        return positional[position]
    return None


def _uses(expr: cst.BaseExpression, names: set[str]) -> bool:
    if isinstance(expr, cst.Name):
        return expr.value in names
    used = False

    class _Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            nonlocal used
            used = used or node.value in names

    visit(expr, _Names())
    return used
