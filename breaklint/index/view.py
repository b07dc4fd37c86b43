"""The `ModuleIndex` of a file, served from its pre-pass summary (the one index; builder.py).

It answers what the resolvers ask (`ProjectIndex.lookup`, `mro`, `attr_values`,
`instance_classes`, ...): expressions are parsed from their source text only when read
(`Fragment`, lazy.py), so a module whose names are looked up but whose expressions nobody reads
costs no libcst at all. A file the rules visit is parsed by libcst and its index bound to that
tree (`bind_tree`: its defs and classes, and their calls, are the tree's nodes). What only
another file's tree has (a def's body, positions) parses that file (`promote`, bound the same
way) and is reported through `on_deep_read`: the engine then checks the reading file again
with that module bound to its tree (engine.py, `check_file`), because rules compare tree nodes
by identity and a node parsed from text is never the tree's.
"""

from __future__ import annotations

from array import array
from pathlib import Path
import textwrap
from functools import lru_cache
from typing import Callable, Iterable

import libcst as cst

from breaklint.finding import Span
from breaklint.infra.lazy import LazyNode, real_node
from breaklint.index.def_lines import line_ends
from breaklint.index.imports import ImportTable
from breaklint.index.project import (UNREADABLE, Assigned, ClassInfo, CompileSite, Fragment, GuardFacts, FunctionHeader, FunctionInfo,
                      ModuleIndex, Parameter)
from breaklint.index.patterns import untraced_blocks
from breaklint.index.source import ParsedFile
from breaklint.infra.walk import Visitor, content_children, content_fields, supported, visit
from breaklint.index.summary import Bindings, CallArgs, ClassSummary, FunctionSummary, Guards, ModuleSummary, may_build

Promote = Callable[[], ModuleIndex]


class ShallowFile:
    """Stands in for a ParsedFile: where the module is; its tree only on demand."""

    def __init__(self, path: Path, display: str, module_name: str, is_package: bool, promote: Promote,
                 read_content: Callable[[], ModuleIndex], content_view: Callable[[], ModuleIndex]) -> None:
        self.path, self.display, self.module_name, self.is_package = path, display, module_name, is_package
        self._promote = promote
        self._read_content = read_content
        self._content_view = content_view
        self.views: list[ModuleIndex] = []  # its content view, once made (shallow_module)

    @property
    def content(self) -> ParsedFile:
        """The file's text and tree for a reader that only looks at them (module-level config,
        `with` blocks), never matching their nodes with the index's: read without making the
        engine check the reading file again against this one's tree (see ParsedFile.content)."""
        return self._read_content().file

    @property
    def content_module(self) -> ModuleIndex:
        """The index with real code for a reader of one def or class (a caller's arguments, a
        callee's returns, a class body): each is parsed on its own when first read, not the
        whole file; read as `content` is."""
        return self._content_view()

    @property
    def tree(self) -> cst.Module:
        return self._promote().file.tree

    @property
    def text(self) -> str:
        return self._promote().file.text

    def span(self, node: cst.CSTNode) -> Span:
        return self._promote().file.span(real_node(node))  # type: ignore[arg-type]

    def line(self, node: cst.CSTNode) -> int:
        return self.span(node).start_line


class Fragments:
    """One Fragment per distinct source text (equal text, equal tree), shared by all the
    modules of a run: model files repeat each other, so most texts are parsed once."""

    def __init__(self, earlier: Fragments | None = None) -> None:
        self.by_text: dict[str, Fragment] = {}
        self.alone_chars = earlier.alone_chars if earlier else 0  # of defs and classes parsed on their own
        # how many texts libcst and the ast have parsed, with those of the Fragments this one
        # replaced: counted as they are parsed (a walk of every fragment at the end of a run was
        # serial work)
        self._parsed = [earlier.parsed(), earlier.shaped()] if earlier else [0, 0]

    def __call__(self, text: str) -> Fragment:
        found = self.by_text.get(text)
        if found is None:
            found = self.by_text[text] = Fragment(text, self._parsed)
        return found

    def parsed(self) -> int:
        """How many of the texts libcst has parsed (the work-count test reads it)."""
        return self._parsed[0]

    def shaped(self) -> int:
        """How many of the texts the `ast` has parsed for a spine (lazy.py; the work-count test)."""
        return self._parsed[1]

    def bindings(self, frozen: Bindings) -> dict[str, list[Assigned]]:
        return {name: [Assigned(self(text), iterated) for text, iterated in values] for name, values in frozen}


Record = Callable[[str], None]  # hears what was read of a module: "functions:<qualname>", "sites", ...


class _ReadDict(dict):  # type: ignore[type-arg]
    """A module's `functions` or `classes`: each lookup is reported by its key, so that a result
    that asked a module for a name it does not define does not depend on the rest of it."""

    def __init__(self, kind: str, record: Record) -> None:
        super().__init__()
        self._kind = kind
        self._record = record

    def _every(self) -> None:
        self._record(f"{self._kind}:*")

    def get(self, key, default=None):  # type: ignore[no-untyped-def, override]
        self._record(f"{self._kind}:{key}")
        return super().get(key, default)

    def __getitem__(self, key):  # type: ignore[no-untyped-def]
        self._record(f"{self._kind}:{key}")
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self._record(f"{self._kind}:{key}")
        return super().__contains__(key)

    def __iter__(self):  # type: ignore[no-untyped-def]
        self._every()
        return super().__iter__()

    def __len__(self) -> int:
        self._every()
        return super().__len__()

    def keys(self):  # type: ignore[no-untyped-def]
        self._every()
        return super().keys()

    def values(self):  # type: ignore[no-untyped-def]
        self._every()
        return super().values()

    def items(self):  # type: ignore[no-untyped-def]
        self._every()
        return super().items()

    def copy(self):  # type: ignore[no-untyped-def]
        self._every()
        return dict(super().items())

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (dict, (dict(super().items()),))


class ShallowModuleIndex(ModuleIndex):
    """A ModuleIndex that reports what is read of it (see `Record`); the engine keys cached
    results on exactly that (engine.py, `_fingerprint`)."""

    def __init__(self, file: ShallowFile, imports: ImportTable, record: Record) -> None:
        # Not the dataclass __init__: most fields are properties here.
        self.file = file  # type: ignore[assignment]
        self._record = record
        self._functions = _ReadDict("functions", record)
        self._classes = _ReadDict("classes", record)
        self._data: dict[str, object] = {"imports": imports, "assigns": {}, "compile_sites": [], "disabled": {},
                                         "defined": [], "defined_classes": [], "guard_facts": GuardFacts((), (), ())}

    @property  # type: ignore[override]
    def functions(self) -> dict[str, FunctionInfo]:
        return self._functions

    @property  # type: ignore[override]
    def classes(self) -> dict[str, ClassInfo]:
        return self._classes

    @property  # type: ignore[override]
    def imports(self) -> ImportTable:
        self._record("imports")
        return self._data["imports"]  # type: ignore[return-value]

    @property  # type: ignore[override]
    def assigns(self) -> dict[str, list[Assigned]]:
        self._record("assigns")
        return self._data["assigns"]  # type: ignore[return-value]

    @property  # type: ignore[override]
    def compile_sites(self) -> list[CompileSite]:
        self._record("sites")
        return self._data["compile_sites"]  # type: ignore[return-value]

    @property  # type: ignore[override]
    def guard_facts(self) -> GuardFacts:
        self._record("guard_facts")  # keyed on the fields it is made of (scan.part_digests)
        return self._data["guard_facts"]  # type: ignore[return-value]

    @property
    def content_module(self) -> ModuleIndex:
        if isinstance(self.file, ParsedFile):  # bound to its tree already (bind_tree)
            return self
        return self.file.content_module  # it records what is read of it (_content_view)

    @property  # type: ignore[override]
    def disabled(self) -> dict[FunctionInfo, bool]:
        self._record("disabled")
        return self._data["disabled"]  # type: ignore[return-value]

    @property  # type: ignore[override]
    def defined(self) -> list[FunctionInfo]:
        self._record("defined")
        return self._data["defined"]  # type: ignore[return-value]

    @property  # type: ignore[override]
    def defined_classes(self) -> list[ClassInfo]:
        self._record("defined")
        return self._data["defined_classes"]  # type: ignore[return-value]

    def classes_building(self, class_name: str) -> tuple[str, ...]:
        self._record(f"builds:{class_name}")  # the set alone (engine: summary.classes_building)
        return tuple(sorted({qualname for qualname, cls in dict.items(self._classes) for values in cls.attrs.values()
                             for assigned in values if isinstance(assigned.origin, Fragment)
                             and may_build(assigned.origin.text, class_name)}))

    def __repr__(self) -> str:
        return f"<ShallowModuleIndex {self.name}>"


class ShallowFunctionInfo(FunctionInfo):
    """A FunctionInfo whose calls, refs and assigns are built from the summary when first read."""

    def __init__(self, module: ModuleIndex, summary: FunctionSummary, ordinal: int, class_info: ClassInfo | None,
                 parent: FunctionInfo | None, fragments: Fragments, promote: Promote,
                 deep_read: Callable[[], None]) -> None:
        # Not the dataclass __init__: node, calls, refs and assigns are properties here.
        self.module = module
        self.qualname = summary.qualname
        self.class_info = class_info
        self.parent = parent
        self.nested = []
        self.ordinal = ordinal
        self.stub = summary.stub
        self.passes_up = summary.passes_parts_up
        # header, global_names and call_guards are made when first read: most functions of a
        # module the call graph reaches are never asked (memory, on a large tree).
        self._header: FunctionHeader | None = None
        self._global_names: set[str] | None = None
        self._call_guards: dict[int, Guards] | None = None
        self._summary = summary
        self._fragments = fragments
        self._promote = promote
        self._deep_read = deep_read
        self._calls: list[cst.Call] | None = None
        self._refs: list[cst.BaseExpression] | None = None
        self._assigns: dict[str, list[Assigned]] | None = None
        self._node: LazyNode | cst.FunctionDef | None = None
        self._bound = False  # its node is real: the tree's (bind_tree), or its own text's (alone)
        self._alone: Callable[[], cst.CSTNode | None] | None = None  # in a content view
        self._deferred = False  # its node is deferred_node's (a def libcst was not given)

    @property  # type: ignore[override]
    def header(self) -> FunctionHeader:
        if self._header is None:
            summary, fragments = self._summary, self._fragments
            self._header = FunctionHeader(summary.name, summary.self_name, frozenset(summary.params), tuple(
                Parameter(name, fragments(annotation) if annotation is not None else None,
                          fragments(default) if default is not None else None, positional)
                for name, annotation, default, positional in summary.signature))
        return self._header

    @property  # type: ignore[override]
    def global_names(self) -> set[str]:
        if self._global_names is None:
            self._global_names = set(self._summary.global_names)
        return self._global_names

    @property  # type: ignore[override]
    def call_guards(self) -> dict[int, Guards]:
        if self._call_guards is None:
            self._call_guards = dict(self._summary.call_guards)
        return self._call_guards

    @property  # type: ignore[override]
    def node(self) -> cst.FunctionDef:
        """Its name and decorators come from the summary; the rest parses the file (in a
        content view: the def's own lines)."""
        if self._node is None and self._alone is not None:
            alone = self._alone()
            if isinstance(alone, cst.FunctionDef):  # calls read before are the summary's, now the node's
                self._node, self._bound, self._calls = alone, True, None
        if self._node is None:
            self._node = LazyNode(cst.FunctionDef, self._known(), lambda: self._promote().defined[self.ordinal].node,
                                  self._deep_read)
        return self._node  # type: ignore[return-value]

    def _known(self) -> dict[str, Callable[[], object]]:
        """What the summary says of the def without parsing it: its name and decorators."""
        summary, fragments = self._summary, self._fragments
        return {"name": lambda: cst.Name(summary.name),
                "decorators": lambda: tuple(cst.Decorator(decorator=fragments(t).node) for t in summary.decorators)}

    def deferred_node(self) -> LazyNode:
        """A stand-in whose name and decorators come from the summary; the rest is the def's
        own lines parsed alone (a def libcst was not given), when first read."""
        alone = self._alone
        self._deferred = True

        def real() -> cst.CSTNode:
            node = alone() if alone is not None else None
            if not isinstance(node, cst.FunctionDef):  # not on its own (a line less indented): the whole tree's
                functions, _ = _definitions(self.module.file.content.tree)
                node = functions[self.ordinal]
            self._node, self._bound, self._calls = node, True, None  # calls read since: the summary's, now the node's
            return node

        return LazyNode(cst.FunctionDef, self._known(), real)

    @property  # type: ignore[override]
    def calls(self) -> list[cst.Call]:
        if self._calls is None and self._deferred and not self._bound:
            # A bodiless def (deferred_node): what a call names is the summary's; its arguments
            # are those of the def's own lines, parsed when first read.
            fragments = self._fragments
            self._calls = [LazyNode(cst.Call, {"func": lambda text=text: fragments(text).node},  # type: ignore[misc]
                                    lambda i=i: self._real_call(i))
                           for i, text in enumerate(self._summary.calls)]
        if self._calls is None and self._bound:
            found = own_calls(self._node, self.module.imports.resolve)  # type: ignore[arg-type]
            if len(found) == len(self._summary.calls):  # else the file changed under us: the text's
                self._calls = found
        if self._calls is None:
            fragments = self._fragments
            self._calls = [cst.Call(func=fragments(text).node, args=_arguments(layout, fragments))
                           for text, layout in zip(self._summary.calls, self._summary.call_args)]
        return self._calls

    @property  # type: ignore[override]
    def stores(self) -> tuple[tuple[str, str], ...]:
        return self._summary.stores

    def _real_call(self, index: int) -> cst.Call:
        real_node(self._node)  # parses the def alone; its calls are then the node's (or the summary's)
        return real_node(self.calls[index])  # type: ignore[return-value]

    @property  # type: ignore[override]
    def refs(self) -> list[cst.BaseExpression]:
        if self._refs is None:
            self._refs = [self._fragments(text).node for text in self._summary.refs]
        return self._refs

    @property  # type: ignore[override]
    def implicit(self) -> list[cst.BaseExpression]:
        return [self._fragments(text).node for text in self._summary.implicit]

    @property  # type: ignore[override]
    def assigns(self) -> dict[str, list[Assigned]]:
        if self._assigns is None:
            self._assigns = self._fragments.bindings(self._summary.assigns)
        return self._assigns

    def __repr__(self) -> str:
        return f"<ShallowFunctionInfo {self.module.name}:{self.qualname}>"


def _arguments(layout: CallArgs, fragments: Fragments) -> tuple[cst.Arg, ...]:
    """A call's arguments as the summary keeps them: the Name/Attribute ones as written, the
    others as a name that nothing binds (the resolvers only follow Name/Attribute arguments)."""
    args = []
    for keyword, text in layout:
        value = fragments(text).node if text is not None else cst.Name(UNREADABLE)
        if keyword in ("*", "**"):
            args.append(cst.Arg(value=value, star=keyword))
        elif keyword is not None:
            args.append(cst.Arg(value=value, keyword=cst.Name(keyword)))
        else:
            args.append(cst.Arg(value=value))
    return tuple(args)


class ShallowClassInfo(ClassInfo):
    def __init__(self, module: ModuleIndex, summary: ClassSummary, ordinal: int, fragments: Fragments,
                 promote: Promote, deep_read: Callable[[], None]) -> None:
        self.module = module
        self.qualname = summary.qualname
        self.methods = {}
        self.attrs = fragments.bindings(summary.attrs)
        for name, index, guards in summary.attr_guards:
            found = self.attrs[name][index]
            self.attrs[name][index] = Assigned(found.origin, found.iterated, guards)
        for name, index, method in summary.attr_methods:
            found = self.attrs[name][index]
            self.attrs[name][index] = Assigned(found.origin, found.iterated, found.guards, method)
        self.tensor_attrs = set(summary.tensor_attrs)
        self.ordinal = ordinal
        # What is read later, not the summary: its attributes are built above, and a class's
        # summary holds them a second time (memory, on a large tree).
        self._name, self._base_texts, self._body = summary.name, summary.bases, summary.body
        self._fragments = fragments
        self._promote = promote
        self._deep_read = deep_read
        self._bases: list[cst.BaseExpression] | None = None
        self._node: LazyNode | cst.ClassDef | None = None
        self._alone: Callable[[], cst.CSTNode | None] | None = None  # in a content view

    @property  # type: ignore[override]
    def node(self) -> cst.ClassDef:
        if self._node is None and self._alone is not None:
            alone = self._alone()
            if isinstance(alone, cst.ClassDef):
                self._node = alone
        if self._node is None:
            name = self._name
            self._node = LazyNode(cst.ClassDef, {"name": lambda: cst.Name(name)},
                                  lambda: self._promote().defined_classes[self.ordinal].node, self._deep_read)
        return self._node  # type: ignore[return-value]

    @property
    def bases(self) -> list[cst.BaseExpression]:
        if self._bases is None:
            self._bases = [self._fragments(text).node for text in self._base_texts]
        return self._bases

    def body_binding(self, name: str, annotation: bool = False) -> cst.BaseExpression | None:
        """From the summary: the class is not parsed (a config class is long)."""
        for bound, value, declared in self._body:
            if bound != name:
                continue
            if declared is None and value is not None:  # `name = value` answers either question
                return self._fragments(value).node
            if declared is not None and (value is None) == annotation:
                text = declared if annotation else value
                return self._fragments(text).node if text is not None else None
        return None

    def __repr__(self) -> str:
        return f"<ShallowClassInfo {self.module.name}:{self.qualname}>"


class _RecordedImports(ImportTable):
    """An import table that reports each name it resolved through the module's own
    definitions (`local:<name>`): adding a def elsewhere in the file changes no other answer."""

    def __init__(self, module: str, is_package: bool, record: Record) -> None:
        super().__init__(module, is_package)
        self._record = record

    def resolve_dotted(self, name: str) -> str:
        head = name.partition(".")[0]
        if head not in self.aliases:
            self._record(f"local:{head}")
        return super().resolve_dotted(name)


def _accessor_of(summary: FunctionSummary) -> bool:
    """`@name.setter` / `@name.deleter` on a def of the property's name: reading the attribute
    still runs the getter (transformers' `PreTrainedModel.loss_function`)."""
    return any(decorator in (f"{summary.name}.setter", f"{summary.name}.deleter") for decorator in summary.decorators)


def shallow_module(summary: ModuleSummary, path: Path, display: str, promote: Promote,
                   fragments: Fragments | None = None, on_deep_read: Callable[[Path], None] | None = None,
                   on_read: Callable[[Path, str], None] | None = None,
                   read_text: Callable[[], str | None] | None = None) -> ModuleIndex:
    """The ModuleIndex of this file, from its summary.
    `on_deep_read(path)` hears of every read of what only the file's tree has, `on_read(path,
    what)` of every read of the index itself (see `Record`); `read_text` gives the file's text
    for its content view (None: the content view is the whole file's tree)."""
    fragments = fragments if fragments is not None else Fragments()
    views: list[ModuleIndex] = []

    def record(what: str) -> None:
        if on_read is not None:
            on_read(path, what)

    def deep_read() -> None:
        if on_deep_read is not None:
            on_deep_read(path)

    def promote_reported() -> ModuleIndex:
        deep_read()
        return promote()

    def read_content() -> ModuleIndex:
        record("content")  # a cached result depends on the bytes, like a deep read
        return promote()

    def content_view() -> ModuleIndex:
        if read_text is None:
            record("content")
            return promote()
        if not views:
            views.append(_content_view(summary, path, display, promote, fragments, read_text, on_read))
        return views[0]

    imports = _RecordedImports(summary.module_name, summary.is_package, record)
    imports.aliases.update(summary.aliases)
    imports.local_defs.update(summary.local_defs)
    file = ShallowFile(path, display, summary.module_name, summary.is_package, promote_reported, read_content,
                       content_view)
    file.views = views  # for release_bound
    module = ShallowModuleIndex(file, imports, record)
    data = module._data
    defined: list[FunctionInfo] = data["defined"]  # type: ignore[assignment]
    defined_classes: list[ClassInfo] = data["defined_classes"]  # type: ignore[assignment]
    for ordinal, class_summary in enumerate(summary.classes):
        cls = ShallowClassInfo(module, class_summary, ordinal, fragments, promote, deep_read)
        defined_classes.append(cls)
        dict.__setitem__(module._classes, cls.qualname, cls)
    for ordinal, fn_summary in enumerate(summary.functions):
        owner = defined_classes[fn_summary.class_index] if fn_summary.class_index >= 0 else None
        parent = defined[fn_summary.parent] if fn_summary.parent >= 0 else None
        fn = ShallowFunctionInfo(module, fn_summary, ordinal, owner, parent, fragments, promote, deep_read)
        defined.append(fn)
        if _accessor_of(fn_summary) and dict.__contains__(module._functions, fn.qualname):  # not a recorded read
            continue  # the property's getter stays what `Class.name` names and a read of it runs
        dict.__setitem__(module._functions, fn.qualname, fn)
        if owner is not None:
            owner.methods[fn.name] = fn
    for fn, fn_summary in zip(defined, summary.functions):
        fn.nested.extend(defined[i] for i in fn_summary.nested)
    data["assigns"].update(fragments.bindings(summary.assigns))  # type: ignore[attr-defined]
    sites: list[CompileSite] = data["compile_sites"]  # type: ignore[assignment]
    for site in summary.compile_sites:
        target = defined[site.function] if site.function >= 0 else fragments(site.target or "").node
        scope = defined[site.scope] if site.scope >= 0 else None
        # What a rule reads of a site is its options: the text as written is enough.
        node = _site_node(site.text, site.function >= 0, fragments)
        sites.append(CompileSite(module, node, target, scope, site.method_form, site.line, site.target_at))  # type: ignore[arg-type]
    for index, recursive in summary.disabled:
        data["disabled"][defined[index]] = recursive  # type: ignore[index]
    data["guard_facts"] = GuardFacts(summary.compiled_names, summary.compiled_calls, summary.state_writes,
                                     summary.imported_calls)
    return module


def _site_node(text: str, decorator: bool, fragments: Fragments) -> LazyNode:
    """A compile site's call (or decorator), parsed from its text when first read."""
    if decorator:
        return LazyNode(cst.Decorator, {"decorator": lambda: fragments(text).node},
                        lambda: cst.Decorator(decorator=fragments(text).node))
    return LazyNode(cst.Call, {}, lambda: real_node(fragments(text).node))  # type: ignore[arg-type, return-value]


def _content_view(summary: ModuleSummary, path: Path, display: str, promote: Promote, fragments: Fragments,
                  read_text: Callable[[], str | None], on_read: Callable[[Path, str], None] | None = None
                  ) -> ModuleIndex:
    """The module for readers of its code (ShallowFile.content_module): a def or class read
    there is parsed from its own lines, dedented (a def whose lines do not parse alone, such as
    one with a string less indented than itself, falls back to the whole file's tree).

    What is read of it is recorded (`on_read`) as what it depends on: a def or class by name
    (`code:functions:<qualname>`, `code:classes:<qualname>`) depends on its index entry and on
    the lines of its outermost definition (everything reachable from it without another
    recorded read lies within them: scan.text_digests); the import table, bindings, names and
    which classes may build a given class (`builds:<name>`) on the summary alone; anything else — every definition (`defined`, `functions:*`), compile
    sites and disabled functions (they lead to defs with no read by name), the whole tree —
    on the file's bytes (`content`). So an edit elsewhere in the file (a function appended)
    leaves a reader of one caller's code standing."""
    def record(what: str) -> None:
        if on_read is not None:
            on_read(path, what)

    def read(what: str) -> None:
        kind, _, key = what.partition(":")
        if kind in ("functions", "classes") and key != "*":
            record(f"code:{what}")
        elif kind in ("imports", "assigns", "guard_facts", "local", "builds"):
            record(what)
        else:
            record("content")

    view = shallow_module(summary, path, display, promote, fragments, on_deep_read=lambda _: record("content"),
                          on_read=lambda _, what: read(what))
    view.file._content_view = lambda: view  # type: ignore[attr-defined]  # its own content view, not the whole tree
    alone = read_alone(read_text, fragments)
    data = view._data  # type: ignore[attr-defined]  # not `defined`: that is a reader's read
    for fn, fn_summary in zip(data["defined"], summary.functions):
        if fn_summary.end_line:
            fn._alone = alone(fn_summary.line, fn_summary.end_line)  # type: ignore[attr-defined]
    for cls, cls_summary in zip(data["defined_classes"], summary.classes):
        if cls_summary.end_line:
            cls._alone = alone(cls_summary.line, cls_summary.end_line)  # type: ignore[attr-defined]
    return view


def read_alone(read_text: Callable[[], str | None], fragments: Fragments
               ) -> Callable[[int, int], Callable[[], cst.CSTNode | None]]:
    """`alone(first, last)`: a reader of the def or class on those lines of the file, parsed
    from them alone, dedented, when first read (None when they do not parse alone). The text is
    asked for again at each read and not kept: a view lives as long as its module, and the
    region computation of a large tree holds hundreds (transformers: 220 texts, 25 MiB). Where
    its lines end is kept (4 bytes a line, a tenth of the text), not found again over the whole
    file at each def read."""
    known: list[array] = []  # type: ignore[type-arg]

    def alone(first: int, last: int) -> Callable[[], cst.CSTNode | None]:
        def parse() -> cst.CSTNode | None:
            text = read_text() or ""
            if not known:
                known.append(array("i", line_ends(text)))  # a file is at most 8 MiB (files.py)
            ends = known[0]
            if not (0 < first <= last <= len(ends)):
                return None
            source = textwrap.dedent(text[ends[first - 2] if first > 1 else 0:ends[last - 1]])
            fragments.alone_chars += len(source)
            try:
                module = cst.parse_module(source)
            except Exception:  # not on its own: the whole file's tree decides
                return None
            return module.body[0] if len(module.body) == 1 else None
        return parse
    return alone


def unbind_bodiless(module: ModuleIndex, summary: ModuleSummary, bodiless: frozenset[int], text: str,
                    fragments: Fragments) -> None:
    """The defs of a bound module whose code libcst was not given (region_text.py): each is
    read from its own lines when a rule reads it, not from the tree's blanked body."""
    alone = read_alone(lambda: text, fragments)
    defined: list[FunctionInfo] = module._data["defined"]  # type: ignore[attr-defined, assignment]
    for fn, fn_summary in zip(defined, summary.functions):
        if fn_summary.line in bodiless and fn_summary.end_line and isinstance(fn, ShallowFunctionInfo):
            fn._bound, fn._calls = False, None
            fn._alone = alone(fn_summary.line, fn_summary.end_line)
            fn._node = fn.deferred_node()  # name and decorators from the index: most readers stop there




def bind_tree(module: ModuleIndex, parsed: ParsedFile, summary: ModuleSummary) -> ModuleIndex:
    """`module` (built from `summary` by shallow_module) as the index of the file the rules
    are about to visit: its defs and classes are the nodes of `parsed.tree`, so that rules and
    the analysis match them by identity. The pre-pass numbers defs and classes in source
    order, as the walk below meets them; if the two disagree (a file that changed between
    them), the module keeps its lazy nodes and the positions stay unknown to the fast path."""
    functions, classes = _definitions(parsed.tree)
    defined: list[FunctionInfo] = module._data["defined"]  # type: ignore[attr-defined, assignment]
    defined_classes: list[ClassInfo] = module._data["defined_classes"]  # type: ignore[attr-defined, assignment]
    if len(functions) == len(defined) and len(classes) == len(defined_classes):
        for fn, node in zip(defined, functions):
            fn._node, fn._bound = node, True  # type: ignore[attr-defined]
        for cls, node in zip(defined_classes, classes):
            cls._node = node  # type: ignore[attr-defined]
        parsed.starts = {node: fn_summary.line for node, fn_summary in zip(functions, summary.functions)}
    module.file = parsed  # type: ignore[assignment]
    return module


def release_bound(module: ModuleIndex) -> None:
    """Break the cycles of a module built here once nothing reads it any more (a checked file's
    index when its rules are done; the modules of an index the engine drops, engine.py
    `release_index`): a module and its defs, classes and compile sites point at one another,
    and so does a content view (its own module) with its file. Reference counting then frees
    it, and the tree bound to it: the collector walks only what lives on (worker.check_task)."""
    data = getattr(module, "_data", None)
    if not isinstance(data, dict):
        return
    for owner in (*data.get("defined", ()), *data.get("defined_classes", ())):  # type: ignore[misc]
        vars(owner).clear()
    file = getattr(module, "file", None)
    if isinstance(file, ParsedFile):
        file.whole = None  # it points back at the file
    elif isinstance(file, ShallowFile):
        for view in file.views:
            release_bound(view)
        file.views.clear()
    vars(module).clear()


def tree_functions(module: ModuleIndex) -> dict[cst.FunctionDef, FunctionInfo]:
    """The functions of a bound module (bind_tree) by their node in its tree, the last def of a
    name only (as `module.functions`), read without parsing a def that libcst was not given."""
    starts = getattr(module.file, "starts", None) or {}
    named = {id(fn) for fn in module.functions.values()}
    defined = module.defined
    if len(starts) != len(defined):  # not bound to the tree: the nodes are the lazy ones
        return {fn.node: fn for fn in module.functions.values()}  # type: ignore[misc]
    return {node: fn for node, fn in zip(starts, defined) if id(fn) in named}


def _definitions(tree: cst.Module) -> tuple[list[cst.FunctionDef], list[cst.ClassDef]]:
    """Every def and class in source order. They only stand in statement positions, so only
    compound statements are walked into (through their fields: `node.children` costs a visit)."""
    functions: list[cst.FunctionDef] = []
    classes: list[cst.ClassDef] = []
    holds_statements = _holds_statements()
    holds: dict[type, bool] = {}
    fields = content_fields if supported() else None

    def walk(node: cst.CSTNode) -> None:
        if fields is None:
            children: Iterable[object] = node.children
        else:
            children = []
            for name in fields(type(node)):
                value = getattr(node, name)
                if type(value) is tuple or type(value) is list:
                    children.extend(value)  # type: ignore[attr-defined]
                else:
                    children.append(value)  # type: ignore[attr-defined]
        for child in children:
            kind = type(child)
            found = holds.get(kind)
            if found is None:
                found = holds[kind] = issubclass(kind, holds_statements) and kind is not cst.SimpleStatementLine
            if not found:
                continue
            if kind is cst.FunctionDef:
                functions.append(child)  # type: ignore[arg-type]
            elif kind is cst.ClassDef:
                classes.append(child)  # type: ignore[arg-type]
            walk(child)  # type: ignore[arg-type]

    walk(tree)
    del walk  # it refers to itself: a cycle that would hold the lists (and their nodes) for the collector
    return functions, classes


def own_calls(function: cst.FunctionDef, resolve: Callable[[cst.BaseExpression], str | None]) -> list[cst.Call]:
    """The calls of a function's own code (its decorators, defaults and body, not what a def or
    class inside it holds), outside the blocks Dynamo never traces, in visit order: the calls
    the pre-pass summarised, as the tree's nodes (a caller's arguments are read from them)."""
    if not supported():
        calls = _OwnCalls(function, resolve)
        visit(function, calls, trivia=False)
        return calls.found
    # _OwnCalls' walk as one loop: no visitor calls per node (nor a `leave_<Node>` looked up for
    # each: most of what a compiled function's first `calls` cost, read by the rules).
    found: list[cst.Call] = []
    skipped: set[int] = set()  # the untraced blocks, by id: the tree holds them meanwhile
    stack: list[object] = [function]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Call:
            found.append(node)  # type: ignore[arg-type]
        elif kind is cst.If or kind is cst.IndentedBlock:
            skipped.update(map(id, untraced_blocks(node, resolve)))  # type: ignore[arg-type]
        elif (kind is cst.FunctionDef or kind is cst.ClassDef) and node is not function:
            continue
        if skipped and id(node) in skipped:
            continue
        stack.extend(reversed(content_children(node)))  # type: ignore[arg-type]
    return found


class _OwnCalls(Visitor):
    """own_calls' visitor (one class: a class made per call is cyclic garbage for the collector)."""

    def __init__(self, function: cst.FunctionDef, resolve: Callable[[cst.BaseExpression], str | None]) -> None:
        self.function = function
        self.resolve = resolve
        self.found: list[cst.Call] = []
        self.skipped: set[cst.CSTNode] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        kind = type(node)  # walk() meets real nodes only: no LazyNode stands for one here
        if kind is cst.Call:
            self.found.append(node)  # type: ignore[arg-type]
        elif kind is cst.If or kind is cst.IndentedBlock:
            self.skipped.update(untraced_blocks(node, self.resolve))  # type: ignore[arg-type]
        elif (kind is cst.FunctionDef or kind is cst.ClassDef) and node is not self.function:
            return False
        return not self.skipped or node not in self.skipped


@lru_cache(maxsize=None)
def _holds_statements() -> tuple[type, ...]:
    """What may hold a statement, directly or through its blocks (read on first use: importing
    breaklint reads nothing of libcst, see deferred.py)."""
    return (cst.BaseCompoundStatement, cst.BaseSuite, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler,
            cst.Finally, cst.MatchCase)
