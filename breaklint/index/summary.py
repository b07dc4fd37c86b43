"""What the pre-pass keeps of a file: its index as plain, picklable data.

A summary is the index of a file, as the one indexer (builder.py) records it —
definitions in visit order, imports, bindings, calls, compile sites — with every expression kept
as its source text (`Expr`). `view.py` turns it back into a `ModuleIndex` whose expressions
are parsed with libcst only when something reads them. Summaries travel between processes and
into the cache, so they hold no libcst nodes and no paths.
"""

from __future__ import annotations

import ast
import operator
import re

from dataclasses import dataclass, fields
from typing import Any, TypeVar

from breaklint.infra.quiet_ast import parse_expression

# The source text of an expression, exactly as written (parentheses around it not included).
Expr = str
# `name -> values`, in the order the bindings were seen; a value is (expression, iterated).
Bindings = tuple[tuple[str, tuple[tuple[Expr, bool], ...]], ...]
# A call's arguments in source order, each (keyword, text): keyword None for a positional
# argument, "*" / "**" for unpacking; the text only for a Name/Attribute argument (the region
# analysis follows those into the callee's parameters), else None. A call without a
# Name/Attribute argument keeps ().
CallArgs = tuple[tuple[str | None, Expr | None], ...]

SUMMARY_FORMAT = 18  # bump when the fields below or their pickled form change (14: slots; 15: stub; 16: attr_methods; 17: pickled by fields; 18: stores): cached summaries are then ignored

_Record = TypeVar("_Record", bound=type)


def _pickled_by_fields(cls: _Record) -> _Record:
    """A frozen slotted dataclass pickled as its class and its fields' values, and so loaded by
    its constructor: a slotted dataclass's own state is set field by field through
    `object.__setattr__` after listing its fields again. Summaries are unpickled on the regions'
    serial path (the whole of timm's: 38 -> 25 ms to load, 43 -> 29 ms to dump)."""
    names = tuple(field.name for field in fields(cls))
    assert len(names) > 1  # attrgetter of two names or more gives a tuple (every record here has several)
    values = operator.attrgetter(*names)

    def __reduce__(self: Any) -> tuple[type, tuple[Any, ...]]:
        return cls, values(self)
    cls.__reduce__ = __reduce__  # type: ignore[assignment, method-assign]
    return cls


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Guard:
    """One test that decides whether a statement runs, kept when it reads a setting: `subject`
    (a dotted chain such as `config.use_cache`) tested for truth (`op` "truthy") or compared
    with a literal (`op` one of == != is `is not` in `not in`, `value` the literal, a tuple for
    `in`). `holds`: the statement runs when the test is true (its `if` body) or false (`else`,
    later `elif`s). Tests of other shapes are not kept: a guard never decides alone, it can only
    show that a statement does not run under a default configuration (see configs.py)."""

    subject: str
    op: str
    value: object
    holds: bool


Guards = tuple[Guard, ...]  # every guard of one statement, outermost `if` first


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class FunctionSummary:
    qualname: str
    name: str
    class_index: int  # the class it is a method of (index into ModuleSummary.classes), or -1
    parent: int  # the enclosing function (index into ModuleSummary.functions), or -1
    self_name: str | None
    params: tuple[str, ...]  # every parameter name, `*args` and `**kwargs` included (sorted)
    calls: tuple[Expr, ...]  # the callee of each call, in visit order
    refs: tuple[Expr, ...]  # Name/Attribute arguments of those calls
    assigns: Bindings
    nested: tuple[int, ...]
    global_names: tuple[str, ...]
    line: int  # where the def starts: its first decorator's `@`, else `def`
    decorators: tuple[Expr, ...]
    call_args: tuple[CallArgs, ...] = ()  # the arguments of each call, as `calls` (() when none is followed)
    call_guards: tuple[tuple[int, Guards], ...] = ()  # (index into calls, its guards), guarded calls only
    # Each named parameter but `*args`/`**kwargs`, in order: (name, annotation, default,
    # positional), the expressions None where absent.
    signature: tuple[tuple[str, Expr | None, Expr | None, bool], ...] = ()
    end_line: int = 0  # its last line: the def can be parsed on its own (view.py, content reads)
    # Methods Python calls without a call in the source, on a plain name: `obj.attr = v` runs
    # `obj.__setattr__`, `a == b` `a.__eq__`, `for x in obj` `obj.__iter__` (`NAME.__dunder__`).
    implicit: tuple[Expr, ...] = ()
    # A method whose body (a docstring aside) is one `raise`: a base's stub that its subclasses
    # override, or a subclass's refusal (regions.py, CallResolver.dispatch).
    stub: bool = False
    # An `__init__`'s stores of a dotted value (or None, True, False) on `self` in statements of
    # its own body, outside any `if`, loop or `try` (`self.dim = config.dim`): (attribute, value
    # as written), the value every instance holds (model_config._stored_in_init); none where the
    # body is on the def line.
    stores: tuple[tuple[str, str], ...] = ()

    @property
    def passes_parts_up(self) -> bool:
        """An `__init__` that passes its base's `__init__` parts it builds: a constructor call or
        a local bound to one (`super().__init__(Backbone(), rpn)`, torchvision's detectors), not
        only its own parameters and constants (`super().__init__(config)`, every transformers
        model): the base's `forward` then runs on what it was given (regions.find_entry_points)."""
        if self.name != "__init__":
            return False
        return any(text is not None and _built_part(text, self.params)
                   for call, args in zip(self.calls, self.call_args) if call.endswith(".__init__")
                   for _, text in args)


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class ClassSummary:
    qualname: str
    name: str
    bases: tuple[Expr, ...]
    attrs: Bindings  # `self.X = ...` in its methods, `register_buffer("X", ...)` & co.
    tensor_attrs: tuple[str, ...]
    attr_guards: tuple[tuple[str, int, Guards], ...] = ()  # (attr, index into its values, guards)
    line: int = 0  # where the class starts (its first decorator's `@`, else `class`) and ends
    end_line: int = 0
    # Its body's own `name = value` and `name: T (= value)` statements, in order: (name, value,
    # annotation), None where absent (model_config.py reads a config class's defaults here).
    body: tuple[tuple[str, Expr | None, Expr | None], ...] = ()
    # (attr, index into its values, method) where a method stores a name it binds: `self.w = w`
    # (values.py judges the attribute by that method's bindings of the name).
    attr_methods: tuple[tuple[str, int, str], ...] = ()


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class SiteSummary:
    """A compile site: `target` is an expression, or `function` the decorated function."""

    line: int
    target: Expr | None
    function: int  # index into ModuleSummary.functions when decorated, else -1
    scope: int  # the function the target is evaluated in, or -1 (module level)
    method_form: bool
    # The call as written (`torch.compile(f, mode=...)`), or the decorator's expression
    # (`torch.compile(dynamic=False)`): what the rules read of a site is its options.
    text: Expr = ""
    # Where `target` starts (line, 1-based column in code points, as finding.Span counts; (0, 0)
    # for a decorator): how a rule tells the argument a compile helper's call compiles
    # (`maybe_compile(model)`), which nothing in the call's own syntax says.
    target_at: tuple[int, int] = (0, 0)


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Place:
    """Where an expression or statement is: 1-based lines, 1-based columns in code points, the
    end exclusive (finding.Span's convention), and the function it is in (index into
    ModuleSummary.functions, or -1 at module level)."""

    line: int
    col: int
    end_line: int
    end_col: int
    scope: int


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Loop:
    """A for/while loop around a statement, in the same function: `target`/`iter` the for
    header's texts ("" for a while loop)."""

    target: Expr
    iter: Expr


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class CompiledCall:
    """A call of a name this file binds to a compiled callable (`model = torch.compile(net)`,
    `@torch.compile def f`, `net.compile()`): what the guards of its frame see change between
    calls. `args` are (keyword, text) in source order (keyword None for a positional argument,
    "*"/"**" for unpacking); `loops` the loops around the call, innermost last."""

    callee: Expr
    place: Place
    args: tuple[tuple[str | None, Expr], ...]
    loops: tuple[Loop, ...]
    grad_disabled: bool  # under `torch.no_grad()`, `inference_mode()`, `set_grad_enabled(False)`


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class StateWrite:
    """A write other code makes to what a compiled frame guards on. `subject` is the dotted
    receiver (`net`, `net.lin.weight`) or the global's name; `action` one of "attr" (`subject.
    name = value`), "method" (`subject.name(args)`: `.eval()`, `.half()`, `.requires_grad_()`),
    "global" (`name = value` under `global name`), "item" (`subject[name] = value`, `name` the
    key's text; "local-item" when `subject` is a local passed to a compiled call), "nonlocal"
    (`name = value` under `nonlocal name`), "call" (a call of a function that writes a global or,
    by `nonlocal`, a closure cell: `value` its arguments as written)."""

    subject: Expr
    action: str
    name: str
    value: Expr  # the assigned value, or the call's arguments as written
    place: Place
    loops: tuple[Loop, ...] = ()  # the loops around it, in its own function (container writes only)


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class CompiledName:
    """A name this file binds to a compiled callable: `model = torch.compile(net)` (`target`
    `net`, `options` the call's text), `@torch.compile def f` (`target` `f`), `net.compile()`."""

    name: Expr
    target: Expr
    options: Expr
    place: Place


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class ModuleSummary:
    module_name: str
    is_package: bool
    aliases: tuple[tuple[str, str], ...]  # the import table once the whole file is read
    local_defs: tuple[str, ...]
    functions: tuple[FunctionSummary, ...]  # every def, in visit (source) order
    classes: tuple[ClassSummary, ...]
    assigns: Bindings  # module-level bindings
    compile_sites: tuple[SiteSummary, ...]
    disabled: tuple[tuple[int, bool], ...]  # (function, recursive)
    # What changes a compiled frame's guards (analysis/guards.py): only in files that compile.
    compiled_names: tuple[CompiledName, ...] = ()
    compiled_calls: tuple[CompiledCall, ...] = ()
    state_writes: tuple[StateWrite, ...] = ()
    # Calls of names imported with `from m import name` (any file): a compiled callable another
    # module binds is called here (analysis/guards.py joins them to that module's compiled names).
    imported_calls: tuple[CompiledCall, ...] = ()
    # The module-level compile helpers it defines (index/compilers.py): (name, kind, position,
    # options); a module that imports one is summarized again with it known (engine.py).
    helpers: tuple[tuple[str, str, int, str], ...] = ()

    @property
    def has_functions(self) -> bool:
        return bool(self.functions)


def _built_part(text: Expr, params: tuple[str, ...]) -> bool:
    """An argument that is a call (`Backbone()`) or a local name (`rpn`), not a parameter of the
    function passing it, a constant or an attribute of one (`config.hidden_size`)."""
    if text.isidentifier():
        return text not in params and text not in ("self", "True", "False", "None")
    try:
        return isinstance(parse_expression(text), ast.Call)
    except (SyntaxError, ValueError, RecursionError):
        return False


def may_build(text: Expr, class_name: str) -> bool:
    """Whether a bound value's text may construct `class_name` (`Bias(h)`, `m.Bias(h)`, either arm
    of `Bias(h) if flag else None`): a superset of what arguments.submodule_callers matches on
    the parsed value, so the set of classes it selects changes whenever that match could."""
    return re.search(rf"(?<![\w]){re.escape(class_name)}\s*\(", text) is not None


def classes_building(summary: ModuleSummary, class_name: str) -> tuple[str, ...]:
    """The classes whose attributes may be built as `class_name(...)` (may_build), by qualname."""
    return tuple(sorted({cls.qualname for cls in summary.classes
                         if any(may_build(text, class_name) for _, values in cls.attrs for text, _ in values)}))
