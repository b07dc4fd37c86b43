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
class SelfType:
    """What `self` holds in a method the walk reached: an instance of `cls` itself (`exact`: the
    compiled or built instance's class), or of `cls` or any of the project's subclasses of it.
    `self.m()` runs m as that class resolves it (virtual dispatch): the override of the instance's
    class, and where the class is not known, every subclass's override too (CallResolver.dispatch)."""

    cls: ClassInfo
    exact: bool = False


@dataclass(frozen=True)
class EntryPoint:
    function: FunctionInfo
    site: str  # "train.py:12", "assume-forward-compiled", "config: pkg.mod:Net.forward"
    # How the compiled instance was built (`torch.compile(Net(cfg))`): its arguments are what
    # its `__init__`'s parameters hold (configs.Defaults.param_values).
    builds: tuple[Build, ...] = ()
    self_type: SelfType | None = None  # None: the function's own class, or any subclass of it


# A callee of a function in the walk: (callee, why the defaults never call it, the subclass whose
# instance runs an inherited forward, the call, what `self` holds in it); see CallResolver.edges.
Edge = tuple[FunctionInfo, str, str, "cst.Call | None", "SelfType | None"]


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

    def edges(self, fn: FunctionInfo, defaults: Defaults, values: set[FunctionInfo] | None = None,
              self_type: SelfType | None = None, through_self: bool = False) -> list[Edge]:
        """callees(fn), each with why the default configuration never makes that call ("" when
        it may): a call in an arm of a settings test it fails, or into an instance that is only
        built under one (configs.py); for a `forward` a subclass inherits, that subclass
        (Region.instance); the call that makes it (None for a nested def or a function passed
        as a value); and what `self` holds in it. `values` gets fn's nested defs and the
        functions it passes as values, called too or not (each ref resolved once).

        `self_type`: what `self` holds in fn (None: fn's class or a subclass). `through_self`:
        only the callees that depend on it (calls through `self` and `super()`, nested defs,
        `Base.method(self, ...)`), for fn walked again with another instance's class."""
        self_type = self_type or default_self_type(fn)
        found: list[Edge] = [(nested, "", "", None, self_type) for nested in fn.nested]
        as_values = [self.typed_refs(ref, fn, self_type) for ref in fn.refs
                     if not through_self or _through_self(ref, fn)]  # first: they need nothing the calls note
        if values is not None:
            values.update(fn.nested, *([t for t, _ in refs] for refs in as_values))
        seen = set(fn.nested)
        guards = fn.call_guards
        passed = self.passed_classes if self.arguments is not None else None
        for index, call in enumerate(fn.calls):
            if through_self and not (_through_self(call.func, fn) or _passes_self(call, fn)):
                continue
            gate = defaults.gate([(guards[index], fn)]) if index in guards else ""
            direct = self.typed_refs(call.func, fn, self_type)
            if direct:
                targets = [(target, gate, "", call, self._called_self(call, fn, target, held, self_type))
                           for target, held in direct]
            elif through_self:
                continue
            else:
                targets = []
                for build in self.project.instance_builds(call.func, fn, fn.module, params=defaults.param_values,
                                                          passed=passed):
                    defaults.note(build)
                    for forward in self.forwards([build.cls]):
                        if all(t[0] is not forward for t in targets):
                            inherited = forward.class_info is not build.cls
                            instance = f"{build.cls.module.name}:{build.cls.qualname}" if inherited else ""
                            targets.append((forward, gate or defaults.gate(build.guards), instance, call,
                                            SelfType(build.cls, True)))
            if not targets and _held_instance_method(call.func, fn):
                # A method of an instance the walk knows of and the index alone does not: one a
                # constructor was given (`self.transform.postprocess(...)`, see instance_builds)
                # or one passed as an argument (`past_key_values.update(...)`).
                name = call.func.attr.value  # type: ignore[attr-defined]
                for build in self.project.instance_builds(call.func.value, fn, fn.module,  # type: ignore[attr-defined]
                                                          params=defaults.param_values, passed=passed):
                    method = self.project.method(build.cls, name)
                    if method is not None and all(t[0] is not method for t in targets):
                        targets.append((method, gate or defaults.gate(build.guards), "", call,
                                        SelfType(build.cls, True)))
            if not targets and isinstance(call.func, cst.Name):  # an instance imported from another module
                targets = [(target, gate, "", call, held) for name, scope, module in self._instance_binding(call.func, fn)
                           if scope is None
                           for target, held in self.typed_forwards(self.project.instance_classes(name, scope, module))]
            found.extend(targets)
            seen.update(target for target, _, _, _, _ in targets)
        for refs in as_values:
            found.extend((t, "", "", None, held) for t, held in refs if t not in seen)
            seen.update(t for t, _ in refs)
        if not through_self:
            found.extend((t, "", "", None, None) for t in self.implicit_targets(fn) if t not in seen)
        return found

    def _called_self(self, call: cst.Call, fn: FunctionInfo, target: FunctionInfo, held: SelfType | None,
                     self_type: SelfType | None) -> SelfType | None:
        """What `self` holds in target, called by `call` in fn: as typed_refs says, or, for an
        unbound `Base.method(self, x)`, what it holds in fn."""
        if held is None and self_type is not None and _passes_self(call, fn) and target.class_info is not None \
                and self.implicit(call.func, target, fn) == 0:
            return self_type
        return held

    def call_targets(self, callee: cst.BaseExpression, scope: FunctionInfo) -> list[FunctionInfo]:
        """What `callee(...)` runs: a function, a method (`self.m`: as the class of scope or any
        subclass resolves it, stubs too, as the walk may have reached any of them with some
        class: see dispatch), or the `forward` of a module instance."""
        direct = list(dict.fromkeys(fn for fn, _ in self.typed_refs(callee, scope, default_self_type(scope), stubs=True)))
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
        """Functions that `expr` names: `helper`, `self.method`, `super().forward`, `mod.fn`
        (`self.method` as the class that defines scope resolves it)."""
        return [fn for fn, _ in self.typed_refs(expr, scope, None)]

    def typed_refs(self, expr: cst.BaseExpression, scope: FunctionInfo | None, self_type: SelfType | None,
                   stubs: bool = False) -> list[tuple[FunctionInfo, SelfType | None]]:
        """function_refs, each with what `self` holds in it (None: its own class or a subclass).
        With `self_type` (what `self` holds in scope), `self.method` and `super().method` are
        dispatched on it (see dispatch; `stubs`: every stub kept)."""
        project = self.project
        module = scope.module if scope is not None else None
        if isinstance(expr, cst.Attribute):
            receiver = expr.value
            name = expr.attr.value
            if _is_super_call(receiver) and scope is not None:
                owner = _owner_class(scope)
                return self.super_dispatch(owner, name, self_type) if owner else []
            owner = project.self_class(receiver, scope)
            if owner is not None:
                if self_type is not None:
                    return self.dispatch(self_type, name, scope, stubs)  # type: ignore[arg-type]
                method = project.method(owner, name)
                return [(method, None)] if method else []
            if name == "apply" and module is not None and isinstance(receiver, (cst.Name, cst.Attribute)):
                applied = self.autograd_function_methods(receiver, module)
                if applied:
                    return [(fn, None) for fn in applied]
        if isinstance(expr, cst.Name) and scope is not None:
            nested = _nested_named(scope, expr.value)
            if nested is not None:
                return [(nested, self_type)]  # a closure: its `self` is the enclosing method's
        if module is None or not isinstance(expr, (cst.Name, cst.Attribute)):
            return []
        qualified = project.resolved(expr, module)
        found = project.lookup(qualified, module) if qualified else None
        if isinstance(found, FunctionInfo):
            return [(found, None)]
        if isinstance(expr, cst.Attribute):  # `obj.method` on a known instance
            found_refs: list[tuple[FunctionInfo, SelfType | None]] = []
            for cls in project.instance_classes(expr.value, scope, module):
                method = project.method(cls, expr.attr.value)
                if method is not None:
                    found_refs.append((method, SelfType(cls, True)))
            return found_refs
        return []

    def dispatch(self, self_type: SelfType, name: str, caller: FunctionInfo, stubs: bool = False
                 ) -> list[tuple[FunctionInfo, SelfType]]:
        """What `self.name(...)` in `caller` runs where `self` holds `self_type`: the method its
        class resolves; where that class is not exact, also each project subclass's own
        resolution (an override, or a mixin's method ahead of it), with that subclass as what
        `self` holds — of the subclasses whose instances run `caller` as that class does (one
        that overrides it reaches this code only through its own method's `super()`, walked with
        its own class). There a stub (a method that only raises: a base's `raise
        NotImplementedError`, a subclass's "not supported") answers only when no candidate does
        anything else: no instance runs kornia's base `apply_transform`, and a subclass that
        refuses a call is not the instance it is made on (`stubs`: kept, to match a call with
        what the walk reached with any class)."""
        project = self.project
        method = project.method(self_type.cls, name)
        if self_type.exact:
            return [(method, self_type)] if method is not None else []
        found: list[tuple[FunctionInfo, SelfType]] = [(method, self_type)] if method is not None else []
        running = _method_of(caller)
        runs = project.method(self_type.cls, running.name) if running is not None else None
        for sub in project.subclasses(self_type.cls):
            if runs is not None and project.method(sub, runs.name) is not runs:
                continue
            override = project.method(sub, name)
            if override is not None and all(override is not o for o, _ in found):
                found.append((override, SelfType(sub)))
        done = [(fn, held) for fn, held in found if not fn.stub]
        return found if stubs else done or found

    def super_dispatch(self, owner: ClassInfo, name: str, self_type: SelfType | None
                       ) -> list[tuple[FunctionInfo, SelfType | None]]:
        """What `super().name(...)` runs in a method of `owner`: the next class after owner
        that defines it, in the MRO of the instance's class when it is known exactly (a
        diamond's), else in owner's; `self` holds the same instance."""
        if self_type is not None and self_type.exact:
            order = self.project.mro(self_type.cls)
            if owner in order:
                for klass in order[order.index(owner) + 1:]:
                    if name in klass.methods:
                        return [(klass.methods[name], self_type)]
                return []
        method = self.project.method(owner, name, skip_self=True)
        return [(method, self_type)] if method else []

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
        return list(dict.fromkeys(fn for fn, _ in self.typed_forwards(classes)))

    def typed_forwards(self, classes: list[ClassInfo]) -> list[tuple[FunctionInfo, SelfType]]:
        """forwards, each with the instance's class (one method may run on several)."""
        found: list[tuple[FunctionInfo, SelfType]] = []
        for cls in classes:
            for name in ("forward", "__call__"):
                method = self.project.method(cls, name)
                if method is not None:
                    found.append((method, SelfType(cls, True)))
        return found

    def compile_targets(self, site: CompileSite) -> list[tuple[FunctionInfo, SelfType | None]]:
        """What a compile site compiles, each with what `self` holds in it (None: not known)."""
        target = site.target
        if isinstance(target, FunctionInfo):
            return [(target, None)]
        scope, module = site.scope, site.module
        if site.method_form:  # `model.compile()`: only a known module instance counts
            return self.typed_forwards(self.project.instance_classes(target, scope, module))
        if isinstance(target, cst.Call) and module.imports.resolve(target.func) in PARTIAL_NAMES:
            if target.args:
                return self.compile_targets(replace(site, target=target.args[0].value))
        if isinstance(target, cst.Lambda):  # `torch.compile(lambda x: model(x) * 2)`: what its body calls
            return [found for call in _lambda_calls(real_node(target))
                    for found in self.compile_targets(replace(site, target=call.func))]
        functions = self.typed_refs(target, scope, None) if scope else self._module_level_refs(target, module)
        if functions:
            return functions
        return self.typed_forwards(self.project.instance_classes(target, scope, module))

    def compile_builds(self, site: CompileSite) -> list[Build]:
        """The instances a compile site compiles, with how each was built (compile_targets' forwards)."""
        target = site.target
        if isinstance(target, FunctionInfo) or (isinstance(target, cst.Call)
                                                and site.module.imports.resolve(target.func) in PARTIAL_NAMES):
            return []
        return self.project.instance_builds(target, site.scope, site.module)

    def _module_level_refs(self, expr: cst.BaseExpression, module: ModuleIndex
                           ) -> list[tuple[FunctionInfo, SelfType | None]]:
        if not isinstance(expr, (cst.Name, cst.Attribute)):
            return []
        qualified = module.imports.resolve(expr)
        found = self.project.lookup(qualified, module) if qualified else None
        if isinstance(found, FunctionInfo):
            return [(found, None)]
        if isinstance(expr, cst.Attribute):  # `torch.compile(net.forward)`: that instance's method
            methods = [(self.project.method(c, expr.attr.value), c)
                       for c in self.project.instance_classes(expr.value, None, module)]
            return [(m, SelfType(c, True)) for m, c in methods if m is not None]
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


def _method_of(fn: FunctionInfo) -> FunctionInfo | None:
    """The method whose `self` fn's `self` is: fn, or the method it is nested in."""
    scope: FunctionInfo | None = fn
    while scope is not None and scope.class_info is None:
        scope = scope.parent
    return scope


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
            entries.extend(EntryPoint(fn, site.location, tuple(b for b in builds if project.method(b.cls, "forward") is fn
                                                               and (held is None or b.cls is held.cls)), held)
                           for fn, held in resolver.compile_targets(site))
    for spec in configured:
        entries.extend(EntryPoint(fn, f"config `{spec}`", (), held) for fn, held in configured_functions(project, spec))
    if assume_forward:
        for module in modules:
            for cls in module.classes.values():
                if "forward" in cls.methods and project.is_nn_module(cls):
                    entries.append(EntryPoint(cls.methods["forward"], ASSUMED))
                elif "__init__" in cls.methods and cls.methods["__init__"].passes_up and project.is_nn_module(cls):
                    # A subclass that builds what its base's `forward` calls and passes it up
                    # (`super().__init__(backbone, rpn, ...)`): that forward runs on its instances.
                    inherited = project.method(cls, "forward")
                    if inherited is not None:
                        entries.append(EntryPoint(inherited, ASSUMED, (Build(cls, None, None, module),), SelfType(cls)))
    return entries


def configured_functions(project: ProjectIndex, spec: str) -> list[tuple[FunctionInfo, SelfType | None]]:
    """`pkg.module:Class.method` or `path/to/file.py:function`; a method the class inherits
    too (`augment:ColorJiggle.forward`), run on instances of that class."""
    where, _, qualname = spec.partition(":")

    def wanted(name: str, path: Path) -> bool:
        return name == where or (where.endswith(".py") and path.as_posix().endswith(where.lstrip("./")))

    found: list[tuple[FunctionInfo, SelfType | None]] = []
    for module in project.select(wanted):
        if qualname in module.functions:
            found.append((module.functions[qualname], None))
            continue
        owner, _, name = qualname.rpartition(".")
        cls = module.classes.get(owner) if owner else None
        method = project.method(cls, name) if cls is not None else None
        if cls is not None and method is not None:
            found.append((method, SelfType(cls)))
    return found


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
    # The walk's nodes: a function with what `self` holds in it, each with the region of the
    # way the walk first came to it (regions keeps a function's first). A method reached again
    # with another instance's class is walked again for its calls through `self` only (`full`
    # False), and what those reach first is labelled with that way (its entry, its call chain).
    nodes: dict[tuple[FunctionInfo, SelfType | None], Region] = {}
    first: dict[FunctionInfo, SelfType | None] = {}  # what `self` held where each was walked whole
    queue: deque[tuple[FunctionInfo, SelfType | None, bool]] = deque()
    whole: set[FunctionInfo] = set()  # queued to be walked whole

    def reach(callee: FunctionInfo, self_type: SelfType | None, region: Callable[[], Region]) -> None:
        self_type = self_type_in(project, callee, self_type)
        if (callee, self_type) in nodes or _disabled(callee, recursive_only=True) or _opaque(callee):
            return
        nodes[(callee, self_type)] = region()
        if callee in regions:
            queue.append((callee, self_type, False))
            return
        regions[callee] = nodes[(callee, self_type)]
        first[callee] = self_type
        whole.add(callee)
        queue.append((callee, self_type, True))

    explicit = [e for e in entries if e.site != ASSUMED]
    assumed = [e for e in entries if e.site == ASSUMED]
    for batch in (explicit, assumed):
        for entry in batch:
            fn = entry.function
            for build in entry.builds:
                defaults.note(build)
            reach(fn, entry.self_type, lambda: Region(fn.qualname, entry.site, (fn.qualname,),
                                                      escape_hatch(fn) in NONSTRICT_NAMES, fn.module.name))
        # Calls the defaults do not make wait for the next round: a function gets the fewest
        # settings that reach it (level 0: none), and its gate names them all.
        later: list[tuple[Region, FunctionInfo, str, str, SelfType | None]] = []
        while queue or later:
            if not queue:
                waiting, later = later, []
                for caller, callee, why, instance, self_type in waiting:
                    reach(callee, self_type, lambda: _callee_region(caller, callee, why, instance))
                continue
            fn, self_type, full = queue.popleft()
            try:
                region = nodes[(fn, self_type)]
                if full:
                    whole.discard(fn)
                    settings = defaults.settings(fn) if fn.call_guards else ()
                    if settings:
                        regions[fn] = replace(regions[fn], settings=settings)
                # Reached as a nested def or passed as a value (`map(pick, xs)`), even when also
                # called: its callers are not all known (`otherwise`).
                for callee, why, instance, call, callee_self in resolver.edges(fn, defaults, otherwise, self_type,
                                                                               through_self=not full):
                    if call is not None:
                        callers.setdefault(callee, set()).add(fn)
                        implicit = resolver.implicit(call.func, callee, fn)
                        grew = implicit is not None and pass_instances(project, resolver, call, fn, callee,
                                                                       implicit, defaults.note)
                        if grew and callee in regions and callee not in whole:
                            whole.add(callee)  # walk it again: its calls may reach more now
                            queue.append((callee, first[callee], True))
                    if why:
                        later.append((region, callee, why, instance, callee_self))
                        continue
                    reach(callee, callee_self, lambda: _callee_region(region, callee, "", instance))
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


def default_self_type(fn: FunctionInfo) -> SelfType | None:
    """What `self` holds in fn when nothing else is known: an instance of its class or of a
    subclass (a nested def: its enclosing method's); None where fn has no `self`."""
    scope: FunctionInfo | None = fn
    while scope is not None:
        if scope.class_info is not None:
            return SelfType(scope.class_info) if scope.self_name else None
        scope = scope.parent
    return None


def self_type_in(project: ProjectIndex, fn: FunctionInfo, held: SelfType | None) -> SelfType | None:
    """What `self` holds in fn, reached with `held` (what the call or entry said): fn's default
    unless `held` is narrower (an exact class, or a subclass of fn's own) — the same key for
    the same instances, so that each method is walked once per class that changes something."""
    own = default_self_type(fn)
    if own is None or held is None or (held.cls is own.cls and not held.exact):
        return own
    return held if own.cls in project.mro(held.cls) else own


def _through_self(expr: cst.BaseExpression, fn: FunctionInfo) -> bool:
    """Whether what `expr` names depends on what `self` holds: `self.m`, `super().m`, a nested
    def (a closure over `self`)."""
    if isinstance(expr, cst.Attribute):
        return _is_super_call(expr.value) or ProjectIndex.self_class(expr.value, fn) is not None
    return isinstance(expr, cst.Name) and _nested_named(fn, expr.value) is not None


def _passes_self(call: cst.Call, fn: FunctionInfo) -> bool:
    """`Base.method(self, x)`: the call's first argument is fn's `self` (a nested def's: its
    enclosing method's)."""
    if not call.args or call.args[0].keyword is not None or call.args[0].star:
        return False
    return ProjectIndex.self_class(call.args[0].value, fn) is not None


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
