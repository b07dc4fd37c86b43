"""Which functions Dynamo will trace: entry points, then reachability over the call graph."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterable

import libcst as cst

from breaklint.analysis.binding import bind
from breaklint.analysis.model_config import Defaults
from breaklint.analysis.torch_api import RETURNS_BOOL, RETURNS_INT, RETURNS_TENSOR
from breaklint.finding import ASSUMED, Region  # ASSUMED: the site of forwards compiled by assumption
from breaklint.index.imports import dotted
from breaklint.index.project import Build, ClassInfo, CompileSite, FunctionInfo, ModuleIndex, ProjectIndex
from breaklint.infra.lazy import real_node
from breaklint.infra.walk import content_nodes

PARTIAL_NAMES = frozenset({"functools.partial"})
# Escape hatches whose body Dynamo does not trace (torch 2.13, checked on the real compiler):
# a custom op is called through its fake implementation and runs eagerly; a leaf function
# (torch 2.11+; only in torch._dynamo.decorators) likewise. torch.compiler has neither
# `nonstrict_trace` nor `leaf_function` in 2.13.
CUSTOM_OP_NAMES = frozenset({"torch.library.custom_op", "torch._library.custom_ops.custom_op"})
LEAF_FUNCTION_NAMES = frozenset({"torch._dynamo.decorators.leaf_function"})
# A nonstrict_trace body is not traced by Dynamo either, but run non-strictly (make_fx style):
# Python side effects are fine there, data-dependent values still break (Region.nonstrict).
NONSTRICT_NAMES = frozenset({"torch._dynamo.nonstrict_trace", "torch._dynamo.decorators.nonstrict_trace"})
OPAQUE_NAMES = CUSTOM_OP_NAMES | LEAF_FUNCTION_NAMES
AUTOGRAD_FUNCTION_NAMES = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
TENSOR_METHODS = RETURNS_TENSOR | RETURNS_BOOL | RETURNS_INT  # what a call on a tensor may name
# Dynamo inlines `MyFn.apply(x)` into `forward` (and, when an input requires grad, traces
# `backward` too, at the same call): breaks in either are reported at their own lines.
AUTOGRAD_FUNCTION_METHODS = ("forward", "backward")


@dataclass(frozen=True)
class EntryPoint:
    function: FunctionInfo
    site: str  # "train.py:12", "assume-forward-compiled", "config: pkg.mod:Net.forward"
    # How the compiled instance was built (`torch.compile(Net(cfg))`): its arguments are what
    # its `__init__`'s parameters hold (configs.Defaults.param_values).
    builds: tuple[Build, ...] = ()


class CallResolver:
    """Resolves callee expressions inside one function to project functions.

    `arguments`: what the region analysis learnt that parameters were passed (module instances,
    see compute_regions); without it a call through a parameter (`for layer in layers:
    layer(x)`) resolves to nothing."""

    def __init__(self, project: ProjectIndex, arguments: dict[tuple[FunctionInfo, str], list[ClassInfo]] | None = None
                 ) -> None:
        self.project = project
        self.arguments = arguments

    def callees(self, fn: FunctionInfo) -> list[FunctionInfo]:
        found: list[FunctionInfo] = list(fn.nested)
        for call in fn.calls:
            found.extend(self.call_targets(call.func, fn))
        for ref in fn.refs:
            found.extend(t for t in self.function_refs(ref, fn) if t not in found)
        found.extend(t for t in self.implicit_targets(fn) if t not in found)
        return found

    def implicit_targets(self, fn: FunctionInfo) -> list[FunctionInfo]:
        """The dunder methods fn's statements call on instances of project classes (`cfg.x = v`
        runs `Config.__setattr__`, `a == b` `Key.__eq__`, `for i in bag` `Bag.__iter__`):
        Dynamo inlines them like any call (#17)."""
        found: list[FunctionInfo] = []
        for expr in fn.implicit:
            if not isinstance(expr, cst.Attribute):
                continue
            for name, scope, module in self._instance_binding(expr.value, fn):
                methods = [self.project.method(c, expr.attr.value)
                           for c in self.project.instance_classes(name, scope, module)]
                found.extend(m for m in methods if m is not None and m not in found)
        return found

    def _instance_binding(self, expr: cst.BaseExpression, fn: FunctionInfo
                          ) -> list[tuple[cst.Name, FunctionInfo | None, ModuleIndex]]:
        """Where a plain name that holds an instance is bound to a call (`CFG = Config()`): in fn,
        at module level, or in the module it is imported from; a cheap test before resolving
        classes, which may read other files. [] for a parameter or anything else."""
        if not isinstance(expr, cst.Name) or expr.value in fn.header.params:
            return []
        made = (cst.Call, cst.Tuple)  # `A, B = K(1), K(2)` too
        if fn.assigns.get(expr.value) or fn.module.assigns.get(expr.value):
            bound = fn.assigns.get(expr.value) or fn.module.assigns.get(expr.value) or []
            return [(expr, fn, fn.module)] if any(isinstance(v.expr, made) for v in bound) else []
        source, _, name = fn.module.imports.resolve_dotted(expr.value).rpartition(".")
        return [(cst.Name(name), None, m) for m in self.project.by_name.get(source, []) if source
                and any(isinstance(v.expr, made) for v in m.assigns.get(name, []))]

    def edges(self, fn: FunctionInfo, defaults: Defaults, values: set[FunctionInfo] | None = None
              ) -> list[tuple[FunctionInfo, str, str, cst.Call | None]]:
        """callees(fn), each with why the default configuration never makes that call ("" when
        it may): a call in an arm of a settings test it fails, or into an instance that is only
        built under one (configs.py); for a `forward` a subclass inherits, that subclass
        (Region.instance); and the call that makes it (None for a nested def or a function
        passed as a value). `values` gets fn's nested defs and the functions it passes as
        values, called too or not (each ref resolved once)."""
        found: list[tuple[FunctionInfo, str, str, cst.Call | None]] = [(nested, "", "", None) for nested in fn.nested]
        as_values = [self.function_refs(ref, fn) for ref in fn.refs]  # first: they need nothing the calls note
        if values is not None:
            values.update(fn.nested, *as_values)
        seen = set(fn.nested)
        guards = fn.call_guards
        passed = self.passed_classes if self.arguments is not None else None
        for index, call in enumerate(fn.calls):
            gate = defaults.gate([(guards[index], fn)]) if index in guards else ""
            direct = self.function_refs(call.func, fn)
            if direct:
                targets = [(target, gate, "", call) for target in direct]
            else:
                targets = []
                for build in self.project.instance_builds(call.func, fn, fn.module, params=defaults.param_values,
                                                          passed=passed):
                    defaults.note(build)
                    for forward in self.forwards([build.cls]):
                        if all(t[0] is not forward for t in targets):
                            inherited = forward.class_info is not build.cls
                            instance = f"{build.cls.module.name}:{build.cls.qualname}" if inherited else ""
                            targets.append((forward, gate or defaults.gate(build.guards), instance, call))
            if not targets and _held_instance_method(call.func, fn):
                # A method of an instance the walk knows of and the index alone does not: one a
                # constructor was given (`self.transform.postprocess(...)`, see instance_builds)
                # or one passed as an argument (`past_key_values.update(...)`).
                name = call.func.attr.value  # type: ignore[attr-defined]
                for build in self.project.instance_builds(call.func.value, fn, fn.module,  # type: ignore[attr-defined]
                                                          params=defaults.param_values, passed=passed):
                    method = self.project.method(build.cls, name)
                    if method is not None and all(t[0] is not method for t in targets):
                        targets.append((method, gate or defaults.gate(build.guards), "", call))
            if not targets and isinstance(call.func, cst.Name):  # an instance imported from another module
                targets = [(target, gate, "", call) for name, scope, module in self._instance_binding(call.func, fn)
                           if scope is None for target in self.forwards(self.project.instance_classes(name, scope, module))]
            found.extend(targets)
            seen.update(target for target, _, _, _ in targets)
        for refs in as_values:
            found.extend((t, "", "", None) for t in refs if t not in seen)
            seen.update(refs)
        found.extend((t, "", "", None) for t in self.implicit_targets(fn) if t not in seen)
        return found

    def call_targets(self, callee: cst.BaseExpression, scope: FunctionInfo) -> list[FunctionInfo]:
        """What `callee(...)` runs: a function, a method, or the `forward` of a module instance."""
        direct = self.function_refs(callee, scope)
        if direct:
            return direct
        params = self.passed_classes if self.arguments is not None else None
        return self.forwards(self.project.instance_classes(callee, scope, scope.module, params=params))

    def passed_classes(self, fn: FunctionInfo, name: str) -> list[ClassInfo]:
        """The module classes that calls in the region pass to fn's parameter `name`."""
        return (self.arguments or {}).get((fn, name), [])

    def bound_targets(self, call: cst.Call, scope: FunctionInfo) -> list[tuple[FunctionInfo, int | None]]:
        """call_targets with, for each, how many leading parameters the call binds by itself
        (`self`, an autograd.Function's `ctx`), or None when its arguments do not go to that
        function's parameters (`backward`, reached through `apply`)."""
        return [(target, self.implicit(call.func, target, scope)) for target in self.call_targets(call.func, scope)]

    def implicit(self, func: cst.BaseExpression, target: FunctionInfo, scope: FunctionInfo) -> int | None:
        """How many leading parameters of target a call through `func` binds by itself."""
        applied = isinstance(func, cst.Attribute) and func.attr.value == "apply"
        if applied and target.class_info is not None and is_autograd_function(self.project, target.class_info):
            return 1 if target.name == "forward" else None
        if target.class_info is None:
            return 0
        decorators = {dotted(d.decorator) for d in target.node.decorators}
        if "staticmethod" in decorators:
            return 0
        if "classmethod" in decorators:
            return 1
        if isinstance(func, cst.Attribute) and self.project.resolve_class(func.value, scope.module) is not None:
            return 0  # `Base.method(self, x)`: unbound, `self` is passed
        return 1

    def function_refs(self, expr: cst.BaseExpression, scope: FunctionInfo | None) -> list[FunctionInfo]:
        """Functions that `expr` names: `helper`, `self.method`, `super().forward`, `mod.fn`."""
        project = self.project
        module = scope.module if scope is not None else None
        if isinstance(expr, cst.Attribute):
            receiver = expr.value
            name = expr.attr.value
            if _is_super_call(receiver) and scope is not None:
                owner = _owner_class(scope)
                method = project.method(owner, name, skip_self=True) if owner else None
                return [method] if method else []
            owner = project.self_class(receiver, scope)
            if owner is not None:
                method = project.method(owner, name)
                return [method] if method else []
            if name == "apply" and module is not None and isinstance(receiver, (cst.Name, cst.Attribute)):
                applied = self.autograd_function_methods(receiver, module)
                if applied:
                    return applied
        if isinstance(expr, cst.Name) and scope is not None:
            nested = _nested_named(scope, expr.value)
            if nested is not None:
                return [nested]
        if module is None or not isinstance(expr, (cst.Name, cst.Attribute)):
            return []
        qualified = project.resolved(expr, module)
        found = project.lookup(qualified, module) if qualified else None
        if isinstance(found, FunctionInfo):
            return [found]
        if isinstance(expr, cst.Attribute):  # `obj.method` on a known instance
            methods = [project.method(c, expr.attr.value) for c in
                       project.instance_classes(expr.value, scope, module)]
            return [m for m in methods if m is not None]
        return []

    def autograd_function_methods(self, expr: cst.BaseExpression, module: ModuleIndex) -> list[FunctionInfo]:
        """`forward` and `backward` of `expr` when it names a torch.autograd.Function subclass."""
        cls = self.project.resolve_class(expr, module)
        if cls is None or not is_autograd_function(self.project, cls):
            return []
        methods = [self.project.method(cls, name) for name in AUTOGRAD_FUNCTION_METHODS]
        return [m for m in methods if m is not None]

    def forwards(self, classes: list[ClassInfo]) -> list[FunctionInfo]:
        """What calling an instance runs: an nn.Module's `forward`, the `__call__` of a plain
        callable object, and both where a module's class overrides `__call__` (PyG's
        `Aggregation.__call__` fills in arguments, then `super().__call__` runs `forward`:
        Dynamo traces the two)."""
        found: list[FunctionInfo] = []
        for cls in classes:
            for name in ("forward", "__call__"):
                method = self.project.method(cls, name)
                if method is not None and method not in found:
                    found.append(method)
        return found

    def compile_targets(self, site: CompileSite) -> list[FunctionInfo]:
        target = site.target
        if isinstance(target, FunctionInfo):
            return [target]
        scope, module = site.scope, site.module
        if site.method_form:  # `model.compile()`: only a known module instance counts
            return self.forwards(self.project.instance_classes(target, scope, module))
        if isinstance(target, cst.Call) and module.imports.resolve(target.func) in PARTIAL_NAMES:
            if target.args:
                return self.compile_targets(replace(site, target=target.args[0].value))
        if isinstance(target, cst.Lambda):  # `torch.compile(lambda x: model(x) * 2)`: what its body calls
            return [fn for call in _lambda_calls(real_node(target)) for fn in self.compile_targets(replace(site, target=call.func))]
        functions = self.function_refs(target, scope) if scope else self._module_level_refs(target, module)
        if functions:
            return functions
        return self.forwards(self.project.instance_classes(target, scope, module))

    def compile_builds(self, site: CompileSite) -> list[Build]:
        """The instances a compile site compiles, with how each was built (compile_targets' forwards)."""
        target = site.target
        if isinstance(target, FunctionInfo) or (isinstance(target, cst.Call)
                                                and site.module.imports.resolve(target.func) in PARTIAL_NAMES):
            return []
        return self.project.instance_builds(target, site.scope, site.module)

    def _module_level_refs(self, expr: cst.BaseExpression, module: ModuleIndex) -> list[FunctionInfo]:
        if not isinstance(expr, (cst.Name, cst.Attribute)):
            return []
        qualified = module.imports.resolve(expr)
        found = self.project.lookup(qualified, module) if qualified else None
        if isinstance(found, FunctionInfo):
            return [found]
        if isinstance(expr, cst.Attribute):
            methods = [self.project.method(c, expr.attr.value)
                       for c in self.project.instance_classes(expr.value, None, module)]
            return [m for m in methods if m is not None]
        return []


def _lambda_calls(target: cst.Lambda) -> list[cst.Call]:
    """The calls in a lambda's body of something other than its own parameters: Dynamo traces
    the lambda and inlines them, as it does a compiled function's calls. (Its own expression is
    no def the rules visit: a `.item()` written in the lambda itself is not reported.)"""
    params = target.params
    own = {param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params)}
    own.update(param.name.value for param in (params.star_arg, params.star_kwarg) if isinstance(param, cst.Param))
    calls = []
    for node in content_nodes(target.body):
        if isinstance(node, cst.Call) and (dotted(node.func) or "").partition(".")[0] not in own:
            calls.append(node)
    return calls


def _held_instance_method(func: cst.BaseExpression, fn: FunctionInfo) -> bool:
    """`self.part.method`, `self.parts[i].method` or `param.method`, for a method no tensor has:
    where only the walk's builds and passed instances can say what runs (a tensor method on a
    parameter, `x.view(...)`, is most of a model's calls and names nothing of the tree)."""
    if not isinstance(func, cst.Attribute) or func.attr.value in TENSOR_METHODS:
        return False
    receiver = func.value
    if isinstance(receiver, cst.Subscript):  # an element of what it holds: `self.layers[idx].update(...)`
        receiver = receiver.value
    if isinstance(receiver, cst.Name):
        return receiver.value in fn.header.params and receiver.value != fn.self_name
    return isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name) \
        and receiver.value.value == fn.self_name


def _is_super_call(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "super"


def _owner_class(fn: FunctionInfo) -> ClassInfo | None:
    while fn is not None:
        if fn.class_info is not None:
            return fn.class_info
        fn = fn.parent  # type: ignore[assignment]
    return None


def _nested_named(scope: FunctionInfo, name: str) -> FunctionInfo | None:
    fn: FunctionInfo | None = scope
    while fn is not None:
        for nested in fn.nested:
            if nested.name == name:
                return nested
        fn = fn.parent
    return None


def find_entry_points(
    project: ProjectIndex, assume_forward: bool, configured: tuple[str, ...],
    candidates: Iterable[ModuleIndex] | None = None,
) -> list[EntryPoint]:
    """`candidates`: the modules that may hold a compile site or a `forward` (default: all);
    the pre-pass knows which, so the others are never built."""
    resolver = CallResolver(project)
    modules = project.modules if candidates is None else list(candidates)
    entries: list[EntryPoint] = []
    for module in modules:
        for site in module.compile_sites:
            builds = tuple(resolver.compile_builds(site))
            entries.extend(EntryPoint(fn, site.location, tuple(b for b in builds if project.method(b.cls, "forward") is fn))
                           for fn in resolver.compile_targets(site))
    for spec in configured:
        entries.extend(EntryPoint(fn, f"config `{spec}`") for fn in configured_functions(project, spec))
    if assume_forward:
        for module in modules:
            for cls in module.classes.values():
                if "forward" in cls.methods and project.is_nn_module(cls):
                    entries.append(EntryPoint(cls.methods["forward"], ASSUMED))
                elif "__init__" in cls.methods and project.is_nn_module(cls):
                    # A subclass that builds what its base's `forward` calls and passes it up
                    # (`super().__init__(backbone, rpn, ...)`): that forward runs on its instances.
                    inherited = project.method(cls, "forward")
                    if inherited is not None:
                        entries.append(EntryPoint(inherited, ASSUMED, (Build(cls, None, None, module),)))
    return entries


def configured_functions(project: ProjectIndex, spec: str) -> list[FunctionInfo]:
    """`pkg.module:Class.method` or `path/to/file.py:function`."""
    where, _, qualname = spec.partition(":")

    def wanted(name: str, path: Path) -> bool:
        return name == where or (where.endswith(".py") and path.as_posix().endswith(where.lstrip("./")))

    return [module.functions[qualname] for module in project.select(wanted) if qualname in module.functions]


def compute_regions(project: ProjectIndex, entries: list[EntryPoint],
                    on_error: Callable[[FunctionInfo, Exception], None] | None = None) -> dict[FunctionInfo, Region]:
    """Breadth-first from the entry points, so each function gets its shortest call chain.

    Explicit compile sites are walked first: a `forward` reached from `torch.compile(model)`
    is labelled with that call, not with the assume-forward switch. Within each, the calls the
    default configuration makes are walked first; what only the others reach is walked after,
    round by round (one more setting each), and gated (Region.gate: its findings are `possible`).

    Module instances passed as arguments are followed into the callee's parameters (`apply(h,
    self.layers)` and then `for layer in layers: layer(h)`): a function whose parameters were
    passed new classes is walked again, until nothing new is learnt (the sets only grow).

    With `on_error`, a function whose calls cannot be resolved (an internal error) is reported
    to it and keeps its region; only what nothing else reaches is left out. Without, it raises."""
    with project.memoized():  # the walk asks the same of many calls (ProjectIndex.memoized)
        return _walk(project, entries, on_error)


def _walk(project: ProjectIndex, entries: list[EntryPoint],
          on_error: Callable[[FunctionInfo, Exception], None] | None) -> dict[FunctionInfo, Region]:
    arguments: dict[tuple[FunctionInfo, str], list[ClassInfo]] = {}
    resolver = CallResolver(project, arguments)
    defaults = Defaults(project)
    regions: dict[FunctionInfo, Region] = {}
    callers: dict[FunctionInfo, set[FunctionInfo]] = {}
    otherwise: set[FunctionInfo] = set()  # reached as a nested def or a function passed as a value
    explicit = [e for e in entries if e.site != ASSUMED]
    assumed = [e for e in entries if e.site == ASSUMED]
    for batch in (explicit, assumed):
        queue: deque[FunctionInfo] = deque()
        for entry in batch:
            fn = entry.function
            for build in entry.builds:
                defaults.note(build)
            if fn in regions or _disabled(fn, recursive_only=True) or _opaque(fn):
                continue
            regions[fn] = Region(fn.qualname, entry.site, (fn.qualname,), escape_hatch(fn) in NONSTRICT_NAMES,
                                 fn.module.name)
            queue.append(fn)
        # Calls the defaults do not make wait for the next round: a function gets the fewest
        # settings that reach it (level 0: none), and its gate names them all.
        later: list[tuple[Region, FunctionInfo, str, str]] = []
        while queue or later:
            if not queue:
                waiting, later = later, []
                for caller, callee, why, instance in waiting:
                    if callee in regions or _disabled(callee, recursive_only=True) or _opaque(callee):
                        continue
                    regions[callee] = _callee_region(caller, callee, why, instance)
                    queue.append(callee)
                continue
            fn = queue.popleft()
            try:
                region = regions[fn]
                settings = defaults.settings(fn) if fn.call_guards else ()
                if settings:
                    region = regions[fn] = replace(region, settings=settings)
                # Reached as a nested def or passed as a value (`map(pick, xs)`), even when also
                # called: its callers are not all known (`otherwise`).
                for callee, why, instance, call in resolver.edges(fn, defaults, otherwise):
                    if call is not None:
                        callers.setdefault(callee, set()).add(fn)
                        implicit = resolver.implicit(call.func, callee, fn)
                        grew = implicit is not None and pass_instances(project, resolver, call, fn, callee,
                                                                       implicit, defaults.note)
                        if grew and callee in regions and callee not in queue:
                            queue.append(callee)  # walk it again: its calls may reach more now
                    if callee in regions or _disabled(callee, recursive_only=True) or _opaque(callee):
                        continue
                    if why:
                        later.append((region, callee, why, instance))
                        continue
                    regions[callee] = _callee_region(region, callee, "", instance)
                    queue.append(callee)
            except Exception as error:  # one function's calls unknown; the rest of the project is still walked
                if on_error is None:
                    raise
                on_error(fn, error)
    # A disabled function itself is never traced, even when it is also an entry; with
    # recursive=False its callees still are (they get frames of their own), so it was walked.
    for fn in [fn for fn in regions if _disabled(fn, recursive_only=False)]:
        del regions[fn]
    for fn, region in regions.items():
        if len(region.path) > 1 and fn not in otherwise and fn in callers:
            regions[fn] = replace(region, callers=tuple(sorted(
                (c.module.name, c.qualname, c in regions and regions[c].path == (c.qualname,)) for c in callers[fn])))
    return regions


def pass_instances(project: ProjectIndex, resolver: CallResolver, call: cst.Call, caller: FunctionInfo,
                   callee: FunctionInfo, implicit: int, note: Callable[[Build], None] | None = None) -> bool:
    """Record the module classes that `call` passes to `callee`'s parameters (Name/Attribute
    arguments, as the summaries keep them); whether any parameter got a new one. `note` is told
    how each passed instance was built (configs.Defaults.note): in the callee it is a Build with
    no call, and its `__init__`'s arguments are read from this one."""
    grew = False
    for name, expr in bind(call, callee.header, implicit).args.items():
        if not isinstance(expr, (cst.Name, cst.Attribute)):
            continue
        builds = project.instance_builds(expr, caller, caller.module, passed=resolver.passed_classes)
        if not builds:
            continue
        if note is not None:
            for build in builds:
                note(build)
        classes = list(dict.fromkeys(build.cls for build in builds))
        known = resolver.arguments.setdefault((callee, name), [])  # type: ignore[union-attr]
        for cls in classes:
            if cls not in known:
                known.append(cls)
                grew = True
                project.learnt()  # passed_classes answers otherwise now
    return grew


def _callee_region(caller: Region, callee: FunctionInfo, why: str, instance: str) -> Region:
    nonstrict = caller.nonstrict or escape_hatch(callee) in NONSTRICT_NAMES
    gate = f"{caller.gate}, and {why}" if caller.gate and why else caller.gate or why
    return Region(caller.entry, caller.site, caller.path + (callee.qualname,), nonstrict, caller.entry_module,
                  gate=gate, instance=instance)


def is_autograd_function(project: ProjectIndex, cls: ClassInfo) -> bool:
    return any(klass.module.imports.resolve(base) in AUTOGRAD_FUNCTION_NAMES
               for klass in project.mro(cls) for base in klass.bases)


def escape_hatch(fn: FunctionInfo) -> str | None:
    """The qualified name of the decorator that keeps Dynamo out of fn's body, if any:
    `torch.library.custom_op`, `leaf_function`, `nonstrict_trace` (any spelling, with or
    without arguments)."""
    for decorator in fn.node.decorators:
        expr = decorator.decorator
        name = fn.module.imports.resolve(expr.func if isinstance(expr, cst.Call) else expr)
        if name in OPAQUE_NAMES or name in NONSTRICT_NAMES:
            return name
    return None


def _opaque(fn: FunctionInfo) -> bool:
    """Dynamo does not trace fn's body at all (a custom op or a leaf function)."""
    return escape_hatch(fn) in OPAQUE_NAMES


def _disabled(fn: FunctionInfo, recursive_only: bool) -> bool:
    """`@torch.compiler.disable` on fn (with recursive=True when `recursive_only`)."""
    recursive = fn.module.disabled.get(fn)
    return recursive is not None and (recursive or not recursive_only)
