"""Helpers several rules share: what a name is bound to, and the qualified name of a call."""

from __future__ import annotations

import re
from typing import Callable, Iterator

import libcst as cst

from breaklint.finding import Region
from breaklint.rule import (Assigned, ClassInfo, COMPILE_NAMES, dotted, FileContext, FunctionInfo, Guard,
                            ModuleIndex, OPTIMIZE_NAMES, visit, Visitor)

Resolve = Callable[["cst.BaseExpression"], "str | None"]  # a string: no libcst at import (deferred.py)


def compiled_by(expr: cst.BaseExpression, ctx: FileContext) -> cst.BaseExpression | None:
    """What a value compiles, when it is a compiled callable: `torch.compile(fn, ...)`,
    `torch.compile(**options)(fn)` / `torch._dynamo.optimize(...)(fn)`, or a compile helper's
    `maybe_compile(fn)` (FileContext.helper_target); else None."""
    if not isinstance(expr, cst.Call) or not expr.args:
        return None
    resolve = ctx.resolve
    if resolve(expr.func) in COMPILE_NAMES or (
            isinstance(expr.func, cst.Call) and resolve(expr.func.func) in COMPILE_NAMES | OPTIMIZE_NAMES):
        return expr.args[0].value
    return ctx.helper_target(expr)


def is_compile_decorator(expr: cst.BaseExpression, resolve: Resolve) -> bool:
    """Whether a decorator compiles the function: `@torch.compile`, `@torch.compile(...)`,
    `@torch._dynamo.optimize(...)`."""
    return resolve(expr.func if isinstance(expr, cst.Call) else expr) in COMPILE_NAMES | OPTIMIZE_NAMES

_SITE = re.compile(r".+:\d+")  # a compile call's location, `train.py:12` (not a config entry)


def bindings(ctx: FileContext, expr: cst.BaseExpression) -> Iterator[tuple[cst.BaseExpression, ModuleIndex]]:
    """The expressions `expr` (a name, `self.attr`, or an imported name) was bound to, each with
    the module whose imports resolve it. Loop targets are left out: they hold an element."""
    fn = ctx.function
    module = ctx.module
    if isinstance(expr, cst.Name):
        scope = fn
        while scope is not None:
            if expr.value in scope.assigns and expr.value not in scope.global_names:
                yield from ((a.expr, module) for a in scope.assigns[expr.value] if not a.iterated)
                return
            scope = scope.parent
        if expr.value in module.assigns:
            yield from ((a.expr, module) for a in module.assigns[expr.value] if not a.iterated)
            return
        qualified = module.imports.resolve_dotted(expr.value)
        if qualified != expr.value:
            source, _, name = qualified.rpartition(".")
            for other in ctx.project.by_name.get(source, []):
                yield from ((a.expr, other) for a in other.assigns.get(name, []) if not a.iterated)
        return
    if isinstance(expr, cst.Attribute) and fn is not None:
        owner = ctx.project.self_class(expr.value, fn)
        if owner is not None:
            instance = _instance_class(ctx, owner)
            values = ctx.project.attr_values(instance or owner, expr.attr.value)
            if instance is not None:
                values = _overridden(values, _use_guards(fn, expr))
            for klass, value in values:
                if not value.iterated:
                    yield value.expr, klass.module


def _instance_class(ctx: FileContext, owner: ClassInfo) -> ClassInfo | None:
    """The subclass whose instance runs this inherited method (Region.instance), if any."""
    region = ctx.region
    if region is None or not region.instance:
        return None
    module_name, _, qualname = region.instance.partition(":")
    for module in ctx.project.by_name.get(module_name, []):
        cls = module.classes.get(qualname)
        if cls is not None and owner in ctx.project.mro(cls):
            return cls
    return None


def _use_guards(fn: FunctionInfo, expr: cst.BaseExpression) -> set[Guard]:
    """The settings tests the call of `expr` (a callee) runs under in `fn`."""
    for index, call in enumerate(fn.calls):
        if call.func is expr:
            return set(fn.call_guards.get(index, ()))
    return set()


def _overridden(values: list[tuple[ClassInfo, Assigned]], use: set[Guard]) -> list[tuple[ClassInfo, Assigned]]:
    """The most derived class's assignments of an attribute replace its bases' (its `__init__`
    assigns after `super().__init__()`), where each runs whenever the use does: unguarded, or
    under tests the use is under too (`if self.with_vertical:` around both)."""
    if not values:
        return values
    first = values[0][0]
    own = [(klass, value) for klass, value in values if klass is first]
    return own if all(set(value.guards) <= use for _, value in own) else values


def called_name(expr: cst.BaseExpression, module: ModuleIndex) -> str | None:
    """`logging.getLogger` for `logging.getLogger(__name__)` (the callee of a call expression)."""
    if isinstance(expr, cst.Call):
        return module.imports.resolve(expr.func)
    return None


CONFIG_PREFIXES = ("torch._dynamo.config.", "torch.compiler.config.")
PATCH_NAMES = frozenset({"torch._dynamo.config.patch", "torch.compiler.config.patch"})


def config_enabled(ctx: FileContext, key: str) -> bool:
    """Whether Dynamo's config `key` is switched on for the region being visited: set at module
    level (`torch._dynamo.config.key = True`) in this file or in the entry point's file, or
    patched around the entry point: `@torch._dynamo.config.patch(key=True)` above or below its
    `@torch.compile`, or `fast = torch._dynamo.config.patch(key=True)(entry)` at module level.
    (Below the compile, Dynamo cannot enter the patch's wrapper: it skips that frame, runs it
    eagerly, and compiles the entry's own frame under the patch — torch 2.13.)"""
    modules = [ctx.module]
    entries = []
    region = ctx.region
    if region is not None:
        for module in entry_modules(ctx, region):
            entry = module.functions.get(region.entry)
            if entry is not None:
                entries.append(entry)
                modules.append(module)
    entry_names = {entry.qualname for entry in entries}
    for module in modules:
        content = module.file.content
        if key not in content.text:  # neither set nor patched in this file: no tree to read
            continue
        for statement in content.tree.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if not isinstance(small, cst.Assign):
                        continue
                    if _is_true(small.value) and any(
                        module.imports.resolve(t.target) in {p + key for p in CONFIG_PREFIXES} for t in small.targets
                    ):
                        return True
                    value = small.value  # fast = torch._dynamo.config.patch(key=True)(entry)
                    if (isinstance(value, cst.Call) and len(value.args) == 1 and _patches(value.func, key, module)
                            and _names_entry(value.args[0].value, entry_names, module)):
                        return True
    if any(_patches(decorator.decorator, key, entry.module) for entry in entries for decorator in entry.node.decorators):
        return True
    return any(_called_only_under_patch(entry, key) for entry in entries)


def _called_only_under_patch(entry: FunctionInfo, key: str) -> bool:
    """Every call, in the entry's own file, of a name that holds the compiled entry (`f` for
    `@torch.compile def f`, `fast` for `fast = torch.compile(f)`) sits in a `with
    torch._dynamo.config.patch(key=True):` block: Dynamo compiles it under the patch."""
    module = entry.module
    content = module.file.content
    if key not in content.text:  # no patch of it in the file: nothing to walk
        return False
    calls = _PatchedCalls(entry.qualname, key, module)
    if any(module.imports.resolve(_callee(d.decorator)) in COMPILE_NAMES for d in entry.node.decorators):
        calls.names.add(entry.qualname)
    visit(content.tree, calls, trivia=False)
    found = [patched for name, patched in calls.calls if name in calls.names]
    return bool(found) and all(found)


class _PatchedCalls(Visitor):
    """Names bound to `torch.compile(entry)`, and every call of a name with whether it sits in
    a `with config.patch(key=True):` block."""

    def __init__(self, entry: str, key: str, module: ModuleIndex) -> None:
        self.entry, self.key, self.module = entry, key, module
        self.names: set[str] = set()
        self.depth = 0
        self.calls: list[tuple[str, bool]] = []

    def _patching(self, node: cst.With) -> bool:
        return any(_patches(item.item, self.key, self.module) for item in node.items)

    def visit_With(self, node: cst.With) -> None:
        self.depth += self._patching(node)

    def leave_With(self, original_node: cst.With) -> None:
        self.depth -= self._patching(original_node)

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        if (isinstance(value, cst.Call) and self.module.imports.resolve(value.func) in COMPILE_NAMES
                and _names_entry(value, {self.entry}, self.module)):
            self.names.update(name for t in node.targets if (name := dotted(t.target)) is not None)

    def visit_Call(self, node: cst.Call) -> None:
        name = dotted(node.func)
        if name is not None:
            self.calls.append((name, self.depth > 0))


def _callee(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr.func if isinstance(expr, cst.Call) else expr


def _names_entry(expr: cst.BaseExpression, entry_names: set[str], module: ModuleIndex) -> bool:
    """`entry` or `torch.compile(entry, ...)`."""
    if isinstance(expr, cst.Call) and module.imports.resolve(expr.func) in COMPILE_NAMES and expr.args:
        expr = expr.args[0].value
    return dotted(expr) in entry_names


def config_patch_block(node: cst.With, module: ModuleIndex) -> bool:
    """`with torch._dynamo.config.patch(...):`. Inside a region Dynamo breaks at it (GB0007) and
    skips the whole frame (`Unsupported context manager`): nothing in the block is traced."""
    return any(isinstance(item.item, cst.Call) and module.imports.resolve(item.item.func) in PATCH_NAMES
               for item in node.items)


def entry_modules(ctx: FileContext, region: Region) -> list[ModuleIndex]:
    """The modules that may define the region's entry: the one it names, else every module."""
    if region.entry_module:
        return ctx.project.by_name.get(region.entry_module) or []
    return ctx.project.modules


def compile_option(ctx: FileContext, option: str) -> cst.BaseExpression | None:
    """The value of `option=` at the compile site of the region being visited
    (`torch.compile(model, fullgraph=True)` or `@torch.compile(fullgraph=True)`)."""
    region = ctx.region
    if region is None or not _SITE.fullmatch(region.site):
        return None  # compiled by assumption (every forward) or by config: no call to read
    for site in ctx.project.compile_sites_at(region.site):
        node = site.node  # its options as written: no deep read
        node = node.decorator if isinstance(node, cst.Decorator) else node
        calls = [node] if isinstance(node, cst.Call) else []
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Call):
            calls.append(node.func)  # torch.compile(**options)(fn)
        for call in calls:
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == option:
                    return arg.value
    return None


def _patches(expr: cst.BaseExpression, key: str, module: ModuleIndex) -> bool:
    """`torch._dynamo.config.patch(key=True)`, `patch("key", True)` or `patch({"key": True})`."""
    if not (isinstance(expr, cst.Call) and module.imports.resolve(expr.func) in PATCH_NAMES):
        return False
    args = expr.args
    for arg in args:
        if arg.keyword is not None and arg.keyword.value == key:
            return _is_true(arg.value)
    if len(args) >= 2 and _string(args[0].value) == key:
        return _is_true(args[1].value)
    if args and isinstance(args[0].value, cst.Dict):
        for element in args[0].value.elements:
            if isinstance(element, cst.DictElement) and _string(element.key) == key:
                return _is_true(element.value)
    return False


def _is_true(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "True"


def _string(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return value if isinstance(value, str) else None
    return None
