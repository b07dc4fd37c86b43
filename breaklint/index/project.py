"""The project index: what each file defines, imports, assigns, calls and compiles.

The data model the analysis reads (ModuleIndex, FunctionInfo, ClassInfo, CompileSite): built
for every file from its pre-pass summary (builder.py, the one indexer; view.py serves it),
its defs bound to the libcst tree for the files the rules visit. Resolution across files
happens in `ProjectIndex` (imports may point anywhere in the tree).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, TypeVar, Union

import libcst as cst

from breaklint.infra.lazy import calls_inside, parse_fragment, written_test
from breaklint.index.imports import ImportTable, base_key, dotted
from breaklint.index.source import ParsedFile
from breaklint.index.conditions import cst_guards_of, text_guards_of
from breaklint.index.summary import CompiledCall, CompiledName, Guards, StateWrite
from breaklint.infra.walk import content_nodes

FunctionNode = "cst.FunctionDef"  # for annotations (libcst is imported on first use)

T = TypeVar("T")

COMPILE_NAMES = frozenset({"torch.compile", "torch.compiler.compile"})
OPTIMIZE_NAMES = frozenset({"torch._dynamo.optimize", "torch._dynamo.eval_frame.optimize"})
DISABLE_NAMES = frozenset(
    {
        "torch.compiler.disable",
        "torch._dynamo.disable",
        "torch._dynamo.eval_frame.disable",
        "torch._disable_dynamo",
        "torch._dynamo.decorators.disable",
    }
)
# Methods that return the module they are called on: `Net().to(device).eval()` is still a Net.
MODULE_CHAIN_METHODS = frozenset(
    {"to", "cuda", "cpu", "eval", "train", "half", "float", "double", "bfloat16",
     "requires_grad_", "type", "to_empty", "share_memory"}
)
# Builtins whose result iterates over the elements of their arguments.
ITERATING_BUILTINS = frozenset({"zip", "enumerate", "reversed", "iter", "list", "tuple"})
MODULE_CONTAINERS = frozenset(
    {"torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict",
     "torch.nn.modules.container.ModuleList", "torch.nn.modules.container.Sequential",
     "torch.nn.modules.container.ModuleDict", "list", "tuple", "dict"}
)


@dataclass(frozen=True, slots=True)
class Parameter:
    """A named parameter as the def writes it (annotation and default kept as written)."""

    name: str
    annotation_origin: "cst.BaseExpression | Fragment | None"
    default_origin: "cst.BaseExpression | Fragment | None"
    positional: bool

    @property
    def annotation(self) -> cst.BaseExpression | None:
        origin = self.annotation_origin
        return origin.node if isinstance(origin, Fragment) else origin

    @property
    def default(self) -> cst.BaseExpression | None:
        origin = self.default_origin
        return origin.node if isinstance(origin, Fragment) else origin


@dataclass(frozen=True, slots=True)
class FunctionHeader:
    """What callers ask of a def without reading its body."""

    name: str
    self_name: str | None  # the first parameter of a method (usually `self`), unless static/class
    params: frozenset[str]  # every parameter name
    signature: tuple[Parameter, ...] = ()  # the named ones but `*args`/`**kwargs`, in order

    @classmethod
    def of(cls, node: FunctionNode, is_method: bool) -> "FunctionHeader":
        params = node.params
        self_name = None
        if is_method and not any(dotted(d.decorator) in ("staticmethod", "classmethod") for d in node.decorators):
            first = params.posonly_params or params.params
            self_name = first[0].name.value if first else None
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        positional = len(params.posonly_params) + len(params.params)
        signature = tuple(
            Parameter(p.name.value, p.annotation.annotation if p.annotation is not None else None, p.default,
                      i < positional)
            for i, p in enumerate(every)
        )
        every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
        return cls(node.name.value, self_name, frozenset(p.name.value for p in every), signature)

    @property
    def positional(self) -> tuple[str, ...]:
        """The positional parameters in order (positional-only, then plain)."""
        return tuple(p.name for p in self.signature if p.positional)

    def parameter(self, name: str) -> Parameter | None:
        for param in self.signature:
            if param.name == name:
                return param
        return None


@dataclass(eq=False)
class FunctionInfo:
    module: ModuleIndex
    qualname: str  # "Net.forward", "helper", "outer.<locals>.inner"
    node: FunctionNode
    class_info: ClassInfo | None  # set for methods (defined directly in a class body)
    parent: FunctionInfo | None  # the enclosing function, for nested defs
    calls: list[cst.Call] = field(default_factory=list)
    # The settings tests a call runs under (by its index in `calls`; unguarded calls are absent).
    call_guards: dict[int, Guards] = field(default_factory=dict)
    refs: list[cst.BaseExpression] = field(default_factory=list)  # functions passed as values
    assigns: dict[str, list[Assigned]] = field(default_factory=dict)
    nested: list[FunctionInfo] = field(default_factory=list)
    global_names: set[str] = field(default_factory=set)
    ordinal: int = -1  # position among the module's defs, in source order
    header: FunctionHeader = field(default=None, repr=False)  # type: ignore[assignment]
    # Dunder methods the body calls implicitly (`obj.__setattr__` for `obj.x = v`; summary.py).
    implicit: list[cst.BaseExpression] = field(default_factory=list)
    stub: bool = False  # a method whose body is one `raise` (summary.FunctionSummary.stub)
    passes_up: bool = False  # an `__init__` passing its base parts it builds (FunctionSummary.passes_parts_up)
    stores: tuple[tuple[str, str], ...] = ()  # an `__init__`'s own `self.attr = a.b` (FunctionSummary.stores)
    # Facts an analysis derives from this function's code alone (see derived): made on first use,
    # as most functions of a large tree are never asked.
    _derived: dict[str, Any] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.header is None:
            self.header = FunctionHeader.of(self.node, self.class_info is not None)

    @property
    def name(self) -> str:
        return self.header.name

    @property
    def self_name(self) -> str | None:
        """The first parameter's name of a method (usually `self`), unless static/class method."""
        return self.header.self_name if self.class_info is not None else None

    def derived(self, key: str, compute: Callable[[], T]) -> T:
        """What `compute` derives from this function's code alone, computed once while the
        function lives: every file that calls another file's function asks the same of it."""
        if self._derived is None:
            self._derived = {}
        if key not in self._derived:
            self._derived[key] = compute()
        return self._derived[key]  # type: ignore[no-any-return]

    def binds_locally(self, name: str) -> bool:
        """Whether `name` is a parameter or local of this function or an enclosing one."""
        fn: FunctionInfo | None = self
        while fn is not None:
            if name in fn.assigns and name not in fn.global_names:
                return True
            if name in fn.header.params:
                return True
            fn = fn.parent
        return False


# What an expression the pre-pass kept but libcst cannot read stands for: a name nothing binds.
UNREADABLE = "__breaklint_unreadable__"


class Fragment:
    """An expression kept as source text (by the pre-pass) and parsed by libcst when read."""

    __slots__ = ("text", "_node", "_count")

    def __init__(self, text: str, count: list[int]) -> None:
        self.text = text
        self._node: cst.BaseExpression | None = None
        # its registry's counts of the fragments libcst parsed and of those the ast parsed
        # (view.Fragments.parsed, .shaped): most readers see only the spine lazy.py builds
        self._count = count

    def _heard(self) -> None:
        self._count[0] += 1

    def _shaped(self) -> None:
        self._count[1] += 1

    @property
    def node(self) -> cst.BaseExpression:
        if self._node is None:
            try:
                self._node = parse_fragment(self.text, self._heard, self._shaped)
            except Exception:  # a bad slice of the pre-pass must not end region computation for all
                self._node = cst.Name(UNREADABLE)
        return self._node


@dataclass(frozen=True, slots=True)
class Assigned:
    """One value bound to a name: `x = expr`, or `for x in expr` (iterated=True)."""

    origin: cst.BaseExpression | Fragment
    iterated: bool = False
    guards: Guards = ()  # the settings tests the binding runs under (attributes only; summary.Guard)
    method: str | None = None  # an attribute stored from a name: the method whose name it is (`self.w = w`)

    @property
    def expr(self) -> cst.BaseExpression:
        origin = self.origin
        return origin.node if isinstance(origin, Fragment) else origin


@dataclass(eq=False)
class ClassInfo:
    module: ModuleIndex
    qualname: str
    node: cst.ClassDef
    methods: dict[str, FunctionInfo] = field(default_factory=dict)
    # `self.X = expr` anywhere in the class's methods, and `register_buffer("X", …)` & co.
    attrs: dict[str, list[Assigned]] = field(default_factory=dict)
    tensor_attrs: set[str] = field(default_factory=set)  # parameters and buffers
    ordinal: int = -1

    @property
    def bases(self) -> list[cst.BaseExpression]:
        return [base.value for base in self.node.bases]

    def body_binding(self, name: str, annotation: bool = False) -> cst.BaseExpression | None:
        """`name = value` or `name: T = value` in the class body, else None; with `annotation`,
        the `T` of a bare `name: T`."""
        body = self.node.body
        for statement in body.body if isinstance(body, cst.IndentedBlock) else ():
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                        isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == name:
                    return small.value
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) \
                        and small.target.value == name and (small.value is None) == annotation:
                    return small.annotation.annotation if annotation else small.value
        return None


# What a parameter of a function may hold: (expression, the function it is read in, its module).
ParamValues = Callable[["FunctionInfo", str], "list[tuple[cst.BaseExpression, FunctionInfo | None, ModuleIndex]]"]


@dataclass(frozen=True, slots=True)
class Build:
    """One way an expression holds an instance of a project class: `call` builds `cls`, with its
    arguments read in `scope` (None: module level) of `module`; `guards`, each with the function
    whose names it reads, are the settings tests that the build runs under (see configs.py)."""

    cls: ClassInfo
    call: cst.Call | None
    scope: FunctionInfo | None
    module: ModuleIndex
    guards: tuple[tuple[Guards, FunctionInfo | None], ...] = ()


@dataclass(frozen=True)
class GuardFacts:
    """A module's compiled names, their calls and the writes to what they guard on."""

    names: tuple[CompiledName, ...]
    calls: tuple[CompiledCall, ...]
    writes: tuple[StateWrite, ...]
    imported_calls: tuple[CompiledCall, ...] = ()  # calls of from-imported names (summary.imported_calls)


@dataclass(frozen=True)
class CompileSite:
    """`torch.compile(target)`, `@torch.compile`, `optimize(...)(target)` or `target.compile()`."""

    module: ModuleIndex
    node: cst.CSTNode | None  # where to point: the call or the decorator (None: from the pre-pass)
    target: cst.BaseExpression | FunctionInfo  # a decorated function is its own target
    scope: FunctionInfo | None  # where the target expression is evaluated
    method_form: bool = False  # `model.compile()`
    line: int = 0  # known without positions when it comes from the pre-pass
    target_at: tuple[int, int] = (0, 0)  # where the target starts (summary.SiteSummary.target_at)

    @property
    def location(self) -> str:
        line = self.line or self.module.file.line(self.node)  # type: ignore[arg-type]
        return f"{self.module.file.display}:{line}"


@dataclass(eq=False)
class ModuleIndex:
    file: ParsedFile
    imports: ImportTable
    functions: dict[str, FunctionInfo] = field(default_factory=dict)  # by qualname
    classes: dict[str, ClassInfo] = field(default_factory=dict)  # by qualname
    assigns: dict[str, list[Assigned]] = field(default_factory=dict)  # module-level bindings
    compile_sites: list[CompileSite] = field(default_factory=list)
    disabled: dict[FunctionInfo, bool] = field(default_factory=dict)  # fn -> recursive?
    # What changes compiled frames' guards, as the pre-pass recorded it (summary.CompiledCall &
    # co.; read by analysis/guards.py): empty in a file that compiles nothing.
    guard_facts: GuardFacts = field(default_factory=lambda: GuardFacts((), (), ()))
    # Every def and class in source order, shadowed ones too (`functions` keeps the last of a name).
    defined: list[FunctionInfo] = field(default_factory=list)
    defined_classes: list[ClassInfo] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.file.module_name

    @property
    def content_module(self) -> "ModuleIndex":
        """This module as built from its tree, for a reader that only looks at its own code (a
        caller's arguments, arguments.py; parameter defaults, configs.py) and never matches its
        nodes with another file's: a shallow module builds it without a deep read
        (view.ShallowModuleIndex)."""
        return self

    def classes_building(self, class_name: str) -> tuple[str, ...]:
        """The qualnames of the classes whose attributes may be built as `class_name(...)`
        (summary.may_build; here, in a module built from its own tree, every class): a shallow
        module records the read as that set alone, not as a read of every class."""
        return tuple(self.classes)


Definition = Union[FunctionInfo, ClassInfo]
# What a parameter was passed, for instance_classes: (function, parameter name) -> classes.
ParamClasses = Callable[[FunctionInfo, str], "list[ClassInfo]"]


@dataclass(frozen=True)
class PendingModule:
    """A module that is only built (from its pre-pass summary) when a lookup reaches it."""

    name: str
    path: Path
    build: Callable[[], ModuleIndex]
    display: str = ""  # the path as findings print it (compile-site locations start with it)
    has_sites: bool = True  # whether it holds a compile site (known from the pre-pass)
    class_bases: tuple[tuple[str, str], ...] = ()  # scan.FileFacts.class_bases


EVERY_MODULE = "*"  # in ProjectIndex.asked: all modules were read
# In ProjectIndex.asked, followed by a class's name: which classes of the project name a base by
# it was read (ProjectIndex.subclasses). NUL is in no module name.
SUBCLASSES_OF = "\0subclasses:"


class _Slot:
    __slots__ = ("name", "path", "build", "module", "display", "has_sites", "class_bases")

    def __init__(self, name: str, path: Path, build: Callable[[], ModuleIndex] | None,
                 module: ModuleIndex | None, display: str | None = None, has_sites: bool = True,
                 class_bases: tuple[tuple[str, str], ...] | None = None) -> None:
        self.name, self.path, self.build, self.module = name, path, build, module
        self.display, self.has_sites = display, has_sites
        self.class_bases = class_bases  # None: read from the module (one given built)

    def bases(self) -> tuple[tuple[str, str], ...]:
        if self.class_bases is None:
            module = self.get()
            self.class_bases = tuple(sorted({
                (key, cls.qualname) for cls in dict.values(module.classes) for base in cls.bases
                if (key := base_key(dotted(base) or "", module.imports.aliases)) is not None}))
        return self.class_bases

    def get(self) -> ModuleIndex:
        if self.module is None:
            self.module = self.build()  # type: ignore[misc]
        return self.module


class ModulesByName(Mapping[str, list[ModuleIndex]]):
    """`project.by_name`: modules are built on first lookup, and every name asked for is noted
    (a cached result depends on exactly the modules its run looked up, found or not)."""

    def __init__(self, slots: dict[str, list[_Slot]], asked: set[str]) -> None:
        self._slots = slots
        self._asked = asked

    def __getitem__(self, name: str) -> list[ModuleIndex]:
        self._asked.add(name)
        return [slot.get() for slot in self._slots[name]]

    def built(self) -> int:
        """How many modules lookups have built so far."""
        return sum(1 for slots in self._slots.values() for slot in slots if slot.module is not None)

    def get(self, name: str, default: object = None) -> list[ModuleIndex]:  # type: ignore[override]
        self._asked.add(name)
        slots = self._slots.get(name)
        return [slot.get() for slot in slots] if slots else default  # type: ignore[return-value]

    def __contains__(self, name: object) -> bool:
        self._asked.add(name)  # type: ignore[arg-type]
        return name in self._slots

    def __iter__(self) -> Iterator[str]:
        return iter(self._slots)

    def __len__(self) -> int:
        return len(self._slots)


class ProjectIndex:
    """Every indexed module, and name and instance resolution across them.

    Modules are given built (`ModuleIndex`) or pending (`PendingModule`, built on first use); the
    answers are the same either way."""

    def __init__(self, modules: Iterable[ModuleIndex | PendingModule]) -> None:
        self._slots: list[_Slot] = [
            _Slot(m.name, m.path, m.build, None, m.display or None, m.has_sites, m.class_bases)
            if isinstance(m, PendingModule)
            else _Slot(m.name, m.file.path, None, m)
            for m in modules
        ]
        self._slots_by_name: dict[str, list[_Slot]] = {}
        for slot in self._slots:
            self._slots_by_name.setdefault(slot.name, []).append(slot)
        self.asked: set[str] = set()  # module names looked up (see ModulesByName)
        self.by_name = ModulesByName(self._slots_by_name, self.asked)
        self._mro: dict[ClassInfo, list[ClassInfo]] = {}
        self._memo: _Memo | None = None  # while memoized()
        self._derived: dict[str, Any] = {}  # see derived
        self._by_base: dict[str, list[tuple[int, str]]] | None = None  # see subclasses

    def derived(self, key: str, compute: Callable[[], T]) -> T:
        """What `compute` derives from this project view, computed once while it lives (a
        check's view is made for one pass over one file: engine.py)."""
        if key not in self._derived:
            self._derived[key] = compute()
        return self._derived[key]  # type: ignore[no-any-return]

    @property
    def modules(self) -> list[ModuleIndex]:
        self.asked.add(EVERY_MODULE)  # whoever reads them all depends on them all
        return [slot.get() for slot in self._slots]

    def replacing(self, *modules: ModuleIndex) -> "ProjectIndex":
        """The same project with `modules` (libcst-built indexes) in place of the modules of
        their paths; the other modules are shared, built or not."""
        view = ProjectIndex(())
        view._mro = {}
        view._memo = None
        by_path = {module.file.path: module for module in modules}
        view._slots = [_Slot(s.name, s.path, None, by_path[s.path], class_bases=s.class_bases) if s.path in by_path
                       else s for s in self._slots]
        view._by_base = self._base_index()  # the same files in the same places
        for slot in view._slots:
            view._slots_by_name.setdefault(slot.name, []).append(slot)
        return view

    @contextmanager
    def memoized(self, one_walk: bool = True) -> Iterator[None]:
        """Within it, answers that depend on the index alone are kept (one region walk, which asks
        the same of many calls): the first answer's reads were recorded (`asked`, view.Record) in
        the same recording, so a repeated one needs none. `one_walk`: one walk asks, so an answer
        that read what it learnt (`params`, `passed`) is kept until it learns more; else (a rule
        pass: each of rule.py's call chains passes arguments of its own) such an answer is not
        kept."""
        outer = self._memo
        if outer is None:
            self._memo = _Memo(one_walk)
        try:
            yield
        finally:
            self._memo = outer

    def learnt(self) -> None:
        """The region walk learnt something that `params` or `passed` answer (a build noted, a
        class passed to a parameter): instance_builds answers that read them are stale."""
        if self._memo is not None:
            self._memo.epoch += 1

    def compile_sites_at(self, location: str) -> list[CompileSite]:
        """The compile sites at `location` (`display:line`, a region's site), building only the
        modules that may hold them (a module whose display path is that one, with sites)."""
        self.asked.add(EVERY_MODULE)  # which module that is depends on every path
        display = location.rpartition(":")[0]
        found: list[CompileSite] = []
        for slot in self._slots:
            if not slot.has_sites or (slot.display is not None and slot.display != display):
                continue
            found.extend(site for site in slot.get().compile_sites if site.location == location)
        return found

    def select(self, wanted: Callable[[str, Path], bool]) -> list[ModuleIndex]:
        """The modules whose (name, path) are wanted, in order; only those are built."""
        self.asked.add(EVERY_MODULE)  # which ones are wanted depends on every path
        return [slot.get() for slot in self._slots if wanted(slot.name, slot.path)]

    def functions(self) -> Iterator[FunctionInfo]:
        for module in self.modules:
            yield from module.functions.values()

    def classes(self) -> Iterator[ClassInfo]:
        for module in self.modules:
            yield from module.classes.values()

    # --- global names -------------------------------------------------------------------
    def _module_candidates(self, name: str, near: ModuleIndex) -> list[_Slot]:
        self.asked.add(name)
        found = self._slots_by_name.get(name, [])
        if len(found) <= 1:
            return found
        # Two `model.py` in sibling example folders: prefer the importer's own folder.
        here = near.file.path.parent
        return sorted(found, key=lambda m: (m.path.parent != here, str(m.path)))

    def lookup(self, qualified: str, near: ModuleIndex, depth: int = 0) -> Definition | None:
        """The project definition a fully qualified dotted name refers to, if any."""
        if depth > 8 or "." not in qualified:  # re-export cycles; a bare name is no module's (nothing to keep)
            return None
        memo = self._memo
        if memo is not None and depth == 0:
            key = (qualified, near)
            if key in memo.lookups:
                return memo.lookups[key]
            found = memo.lookups[key] = self._lookup(qualified, near, 0)
            memo.stored()
            return found
        return self._lookup(qualified, near, depth)

    def _lookup(self, qualified: str, near: ModuleIndex, depth: int) -> Definition | None:
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            candidates = self._module_candidates(".".join(parts[:cut]), near)
            if candidates:
                return self._lookup_in(candidates[0].get(), parts[cut:], depth)
        return None

    def _lookup_in(self, module: ModuleIndex, rest: list[str], depth: int) -> Definition | None:
        head = rest[0]
        qual = ".".join(rest)
        if qual in module.functions:
            return module.functions[qual]
        if qual in module.classes:
            return module.classes[qual]
        if head in module.classes and len(rest) == 2:
            return self.method(module.classes[head], rest[1])
        if head in module.imports.aliases:  # a re-export: `from .layers import Block`
            target = module.imports.aliases[head]
            return self.lookup(".".join([target, *rest[1:]]), module, depth + 1)
        return None

    def resolved(self, expr: cst.BaseExpression, module: ModuleIndex) -> str | None:
        """`module.imports.resolve(expr)`, kept while memoized: by node, as a fragment's node is
        shared by every reader of its text (view.Fragments)."""
        memo = self._memo
        if memo is None:
            return module.imports.resolve(expr)
        key = (id(expr), module)
        kept = memo.resolved.get(key)
        if kept is not None and kept[0] is expr:
            return kept[1]
        name = module.imports.resolve(expr)
        memo.resolved[key] = (expr, name)  # it holds expr: no other node takes its id meanwhile
        memo.stored()
        return name

    def resolve_class(self, expr: cst.BaseExpression, module: ModuleIndex) -> ClassInfo | None:
        name = self.resolved(expr, module)
        if name is None:
            return None
        found = self.lookup(name, module)
        return found if isinstance(found, ClassInfo) else None

    # --- classes ------------------------------------------------------------------------
    def bases(self, cls: ClassInfo) -> list[ClassInfo]:
        found = []
        for base in cls.bases:
            resolved = self.resolve_class(base, cls.module)
            if resolved is not None and resolved is not cls:
                found.append(resolved)
        return found

    def mro(self, cls: ClassInfo) -> list[ClassInfo]:
        """Depth-first, left to right, duplicates dropped: close enough to C3 for lookups.
        Computed once per class (the rules ask for it at every `self.x`); do not mutate it."""
        found = self._mro.get(cls)
        if found is None:
            found = self._mro[cls] = self._compute_mro(cls)
        return found

    def _compute_mro(self, cls: ClassInfo) -> list[ClassInfo]:
        order: list[ClassInfo] = []
        stack = [cls]
        while stack:
            current = stack.pop(0)
            if current in order:
                continue
            order.append(current)
            stack[0:0] = self.bases(current)
        return order

    def method(self, cls: ClassInfo, name: str, skip_self: bool = False) -> FunctionInfo | None:
        memo = self._memo
        if memo is not None:
            key = (cls, name, skip_self)
            if key in memo.methods:
                return memo.methods[key]
            found = memo.methods[key] = self._method(cls, name, skip_self)
            memo.stored()
            return found
        return self._method(cls, name, skip_self)

    def _method(self, cls: ClassInfo, name: str, skip_self: bool) -> FunctionInfo | None:
        for klass in self.mro(cls)[1 if skip_self else 0 :]:
            if name in klass.methods:
                return klass.methods[name]
        return None

    def subclasses(self, cls: ClassInfo) -> list[ClassInfo]:
        """The project's classes that derive from `cls`, directly or not, each once, the nearest
        first. Only the files whose classes name a base by `cls`'s name are built (the pre-pass's
        FileFacts.class_bases), and each such class is kept only when that base resolves to `cls`."""
        memo = self._memo
        if memo is not None and cls in memo.subclasses:
            for name in memo.subclasses[cls][1]:
                self.asked.add(SUBCLASSES_OF + name)  # this recording depends on them too
            return memo.subclasses[cls][0]
        found: list[ClassInfo] = []
        names: list[str] = []
        frontier = [cls]
        while frontier:
            current = frontier.pop(0)
            name = current.qualname.rpartition(".")[2]
            names.append(name)
            self.asked.add(SUBCLASSES_OF + name)
            for position, qualname in self._base_index().get(name, ()):
                sub = self._slots[position].get().classes.get(qualname)
                if sub is not None and sub is not cls and sub not in found and current in self.bases(sub):
                    found.append(sub)
                    frontier.append(sub)
        if memo is not None:
            memo.subclasses[cls] = (found, tuple(names))
            memo.stored()
        return found

    def _base_index(self) -> dict[str, list[tuple[int, str]]]:
        """base key -> the (slot position, class qualname) that name a base by it
        (imports.base_key); made once, and shared with the views made by `replacing`."""
        if self._by_base is None:
            self._by_base = {}
            for position, slot in enumerate(self._slots):
                for key, qualname in slot.bases():
                    self._by_base.setdefault(key, []).append((position, qualname))
        return self._by_base

    def attr_values(self, cls: ClassInfo, name: str) -> list[tuple[ClassInfo, Assigned]]:
        return [(klass, value) for klass in self.mro(cls) for value in klass.attrs.get(name, ())]

    def is_tensor_attr(self, cls: ClassInfo, name: str) -> bool:
        return any(name in klass.tensor_attrs for klass in self.mro(cls))

    def is_nn_module(self, cls: ClassInfo) -> bool:
        for klass in self.mro(cls):
            for base in klass.bases:
                resolved = klass.module.imports.resolve(base) or ""
                if resolved.startswith("torch.nn."):
                    return True
        return False

    # --- instances ----------------------------------------------------------------------
    def instance_classes(
        self, expr: cst.BaseExpression, scope: FunctionInfo | None, module: ModuleIndex, depth: int = 0,
        params: ParamClasses | None = None,
    ) -> list[ClassInfo]:
        """Project classes whose instances `expr` may hold; containers are flattened to elements.
        `params(fn, name)`: the module classes the region passed to a parameter of fn (the region
        analysis knows its callers); without it a parameter holds nothing known."""
        found: list[ClassInfo] = []
        for build in self.instance_builds(expr, scope, module, depth, passed=params):
            if build.cls not in found:
                found.append(build.cls)
        return found

    def instance_builds(
        self, expr: cst.BaseExpression, scope: FunctionInfo | None, module: ModuleIndex, depth: int = 0,
        guards: tuple[tuple[Guards, FunctionInfo | None], ...] = (), params: ParamValues | None = None,
        passed: ParamClasses | None = None,
    ) -> list[Build]:
        """instance_classes, each class with the call that builds it and the settings tests
        that the build runs under (`self.enc = A(c) if c.flag else B(c)`, or an `if` around it).
        With `params` (what a parameter may hold: its default, the arguments it was given), a
        class passed as an argument is followed too: `self.mlp = mlp_layer(dim)`. With `passed`,
        a module instance passed as an argument: `for layer in layers: layer(h)`."""
        memo = self._memo
        if memo is None:
            return self._instance_builds(expr, scope, module, depth, guards, params, passed)
        # A name is its text (`x.view` and `x.sum` hold two nodes of `x`), another node itself.
        named = expr.__class__ is cst.Name
        node = None if named else expr
        key = (expr.value if named else id(expr), scope, module, guards, params is None, passed is None)
        kept = memo.builds.get(key)
        if kept is not None and kept[0] is node and depth <= kept[1]:
            return list(kept[2])
        moment = memo.transient.get((key, depth))
        if moment is not None and moment[0] is node and moment[3] in (None, memo.epoch):
            memo.cuts += moment[2]  # what made it transient holds for whoever asked this
            memo.state_reads += moment[3] is not None
            return list(moment[1])
        state, cuts = memo.state_reads, memo.cuts
        found = self._instance_builds(expr, scope, module, depth, guards, params, passed)
        read, cut = memo.state_reads != state, memo.cuts != cuts
        if not read and not cut:  # the same answer whenever asked again
            memo.builds[key] = (node, depth, found)  # from this depth or a shallower one: nothing was cut
        elif not read or memo.one_walk:  # cut short: the same at this depth; read the walk's state: until it learns more
            memo.transient[(key, depth)] = (node, found, int(cut), memo.epoch if read else None)
        else:
            return found
        memo.stored()
        return list(found)

    def _instance_builds(
        self, expr: cst.BaseExpression, scope: FunctionInfo | None, module: ModuleIndex, depth: int,
        guards: tuple[tuple[Guards, FunctionInfo | None], ...], params: ParamValues | None,
        passed: ParamClasses | None,
    ) -> list[Build]:
        if depth > 6:
            if self._memo is not None:
                self._memo.cuts += 1
            return []
        found: list[Build] = []

        def inner(sub: cst.BaseExpression, where: FunctionInfo | None = scope, held_in: ModuleIndex = module,
                  under: tuple[tuple[Guards, FunctionInfo | None], ...] = guards) -> list[Build]:
            return self.instance_builds(sub, where, held_in, depth + 1, under, params, passed)

        kind = expr.__class__  # one lookup, not a chain of isinstance tests on libcst's ABCs
        if kind is cst.Call:
            func = expr.func
            cls = self.resolve_class(func, module)
            if cls is not None:
                return [Build(cls, expr, scope, module, guards)]
            if isinstance(func, cst.Attribute) and func.attr.value in MODULE_CHAIN_METHODS:
                return inner(func.value)
            qualified = self.resolved(func, module)
            if qualified in MODULE_CONTAINERS:
                for arg in expr.args:
                    if arg.star and isinstance(arg.value, cst.Name):  # nn.Sequential(*blocks)
                        found.extend(inner(arg.value))
                        continue
                    for call in _constructor_calls(arg.value):
                        found.extend(inner(call))
                return found
            if qualified in ITERATING_BUILTINS and not (scope is not None and self.bound_values(qualified, scope, module)):
                # `for res, attn in zip(self.res, self.attn)`, `enumerate(blocks)`: the elements of
                # every argument (which went to which target is not kept: each may be any of them).
                for arg in expr.args:
                    found.extend(inner(arg.value))
                return found
            if params is not None and isinstance(func, cst.Name):
                for cls in self.class_refs(func, scope, module, params, depth + 1):
                    found.append(Build(cls, expr, scope, module, guards))
            return found
        if kind is cst.IfExp:
            test = written_test(expr)  # a fragment's test is read as written: libcst never parses it
            for arm, holds in ((expr.body, True), (expr.orelse, False)):
                arm_guards = tuple(cst_guards_of(expr.test, holds) if test is None else text_guards_of(test, holds))
                found.extend(inner(arm, under=(*guards, (arm_guards, scope)) if arm_guards else guards))
            return found
        if kind in _sequences():
            for call in _constructor_calls(expr):
                found.extend(inner(call))
            return found
        if kind is cst.Subscript:
            return inner(expr.value)
        if kind is cst.Name:
            bound = self.bound_values(expr.value, scope, module)
            for value in bound:
                found.extend(inner(value.expr))
            if not bound and passed is not None:
                owner = _parameter_owner(expr.value, scope)
                if owner is not None:
                    if self._memo is not None:
                        self._memo.state_reads += 1  # what the walk has passed so far
                    found.extend(Build(cls, None, scope, module, guards) for cls in passed(owner, expr.value))
            if params is not None and scope is not None and scope.name == "__init__" \
                    and expr.value in scope.header.params:
                # An instance the constructor was given (`self.rpn = rpn`), also where it only
                # replaces a missing one (`if heads is None: heads = BoxHeads()`).
                if self._memo is not None:
                    self._memo.state_reads += 1  # what the walk has noted so far
                for value, where, held_in in params(scope, expr.value):
                    found.extend(b for b in inner(value, where, held_in) if b not in found)
            return found
        if kind is cst.Attribute:
            owner = self.self_class(expr.value, scope)
            if owner is not None:
                for klass, value in self.attr_values(owner, expr.attr.value):
                    # `self.x = ...` is read as `__init__` wrote it: its locals, its parameters.
                    init = klass.methods.get("__init__")
                    found.extend(inner(value.expr, init, klass.module,
                                       (*guards, (value.guards, init)) if value.guards else guards))
        return found

    def class_refs(self, expr: cst.BaseExpression, scope: FunctionInfo | None, module: ModuleIndex,
                   params: ParamValues, depth: int = 0) -> list[ClassInfo]:
        """The project classes `expr` names as a value (a class, not an instance): `LSTM2d`, a
        local bound to one, or a parameter given one (by default or by an argument)."""
        if depth > 8:
            if self._memo is not None:
                self._memo.cuts += 1
            return []
        if not isinstance(expr, (cst.Name, cst.Attribute)):
            return []
        cls = self.resolve_class(expr, module)
        if cls is not None:
            return [cls]
        if not isinstance(expr, cst.Name):
            return []
        found: list[ClassInfo] = []
        bound = self.bound_values(expr.value, scope, module)
        for value in bound:
            if not value.iterated:
                found.extend(self.class_refs(value.expr, scope, module, params, depth + 1))
        fn = scope
        while not bound and fn is not None:
            if expr.value in fn.header.params:
                if self._memo is not None:
                    self._memo.state_reads += 1  # what the walk has learnt of the arguments so far
                for value, where, held_in in params(fn, expr.value):
                    found.extend(c for c in self.class_refs(value, where, held_in, params, depth + 1) if c not in found)
                break
            fn = fn.parent
        return found

    def bound_values(self, name: str, scope: FunctionInfo | None, module: ModuleIndex) -> list[Assigned]:
        fn = scope
        while fn is not None:
            if name in fn.assigns:
                return fn.assigns[name]
            fn = fn.parent
        return module.assigns.get(name, [])

    @staticmethod
    def self_class(expr: cst.BaseExpression, scope: FunctionInfo | None) -> ClassInfo | None:
        """The class of `self` when expr is the method's `self` (also inside nested functions)."""
        fn = scope
        while fn is not None:
            if fn.class_info is not None and isinstance(expr, cst.Name) and expr.value == fn.self_name:
                return fn.class_info
            fn = fn.parent
        return None


class _Memo:
    """ProjectIndex.memoized's answers. An instance_builds answer is kept for good unless it read
    what the region walk learns as it goes (`params`, `passed`: state_reads) or was cut short by
    depth (cuts); those are kept for the same depth, and until the walk learns more (`transient`):
    a name bound to itself (`x = x[0]`) is asked again at every level below, from each value."""

    __slots__ = ("lookups", "methods", "subclasses", "resolved", "builds", "transient", "state_reads", "cuts", "epoch", "size",
                 "one_walk")

    def __init__(self, one_walk: bool = True) -> None:
        self.one_walk = one_walk  # see ProjectIndex.memoized
        self.size = 0  # answers kept: at _MEMO_SIZE all are dropped (see stored)
        self.lookups: dict[tuple[str, ModuleIndex], Definition | None] = {}
        self.methods: dict[tuple[ClassInfo, str, bool], FunctionInfo | None] = {}
        self.subclasses: dict[ClassInfo, tuple[list[ClassInfo], tuple[str, ...]]] = {}  # with the names asked
        self.resolved: dict[tuple[int, ModuleIndex], tuple[cst.BaseExpression, str | None]] = {}
        self.builds: dict[tuple[object, ...], tuple[cst.BaseExpression | None, int, list[Build]]] = {}
        # An answer cut short by depth, kept for that depth; one that read what the walk learns,
        # with the epoch it was made in: (node, builds, cut, epoch or None).
        self.transient: dict[tuple[object, int], tuple[cst.BaseExpression | None, list[Build], int, int | None]] = {}
        self.state_reads = 0
        self.cuts = 0
        self.epoch = 0  # how many times the walk learnt something (ProjectIndex.learnt)

    def stored(self) -> None:
        """One more answer kept. Past _MEMO_SIZE they are all dropped: each holds the nodes it
        was asked of, and on a large tree (transformers: 630,000 answers) they held 150 MB of the
        regions' process; a walk that goes on asks mostly of what it meets next (a model folder's
        own modules), and timm's whole walk keeps 44,000."""
        self.size += 1
        if self.size > _MEMO_SIZE:
            for kept in (self.lookups, self.methods, self.subclasses, self.resolved, self.builds, self.transient):
                kept.clear()
            self.size = 0


_MEMO_SIZE = 30_000


def _parameter_owner(name: str, scope: FunctionInfo | None) -> FunctionInfo | None:
    """The function (scope or one enclosing it) whose parameter `name` is, unless a nearer one
    binds the name locally."""
    fn = scope
    while fn is not None:
        if name in fn.assigns and name not in fn.global_names:
            return None
        if name in fn.header.params:
            return fn
        fn = fn.parent
    return None


@lru_cache(maxsize=1)
def _sequences() -> frozenset[type]:  # made on first use: nothing of libcst is read on import (deferred.py)
    return frozenset({cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp})


def _constructor_calls(expr: cst.BaseExpression) -> tuple[cst.Call, ...]:
    """Calls inside a container literal or comprehension: `[Block(d) for _ in range(n)]` (from
    the fragment's `ast` shape where it has one: nothing parsed)."""
    if expr.__class__ is cst.Call:  # itself, as the search gives it, but without parsing a fragment's
        return (expr,)  # type: ignore[return-value]
    return calls_inside(expr, _outer_calls)  # type: ignore[return-value]


def _outer_calls(expr: cst.CSTNode) -> Iterator[cst.Call]:
    for node in content_nodes(expr, enter=lambda node: not isinstance(node, cst.Call)):
        if isinstance(node, cst.Call):
            yield node


class ModuleNames:
    """module_name_for, with each directory's package walk done once (a big tree has
    thousands of files in hundreds of directories)."""

    def __init__(self) -> None:
        self._packages: dict[Path, list[str]] = {}
        self._resolved: dict[Path, Path] = {}  # a directory as discovered -> as resolved

    def __call__(self, path: Path) -> tuple[str, bool]:
        if os.path.islink(path):  # os.path: pathlib's own costs more than the call (2,681 files a run)
            return module_name_for(path)
        is_package = path.name == "__init__.py"
        parts = [] if is_package else [path.stem]
        directory = self._resolved.get(path.parent)
        if directory is None:
            directory = self._resolved[path.parent] = path.parent.resolve()
        parts.extend(self._package_parts(directory))
        return ".".join(reversed(parts)) or path.stem, is_package

    def _package_parts(self, directory: Path) -> list[str]:
        found = self._packages.get(directory)
        if found is None:
            if (directory / "__init__.py").is_file() and directory.parent != directory:
                found = [directory.name, *self._package_parts(directory.parent)]
            else:
                found = []
            self._packages[directory] = found
        return found


def module_name_for(path: Path) -> tuple[str, bool]:
    """Dotted module name from the package layout (`__init__.py` files walked upwards)."""
    try:
        path = path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: name it from the path as given
        path = Path(os.path.abspath(path))
    is_package = path.name == "__init__.py"
    parts = [] if is_package else [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        parts.append(directory.name)
        directory = directory.parent
    return ".".join(reversed(parts)) or path.stem, is_package
