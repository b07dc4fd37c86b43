"""What a model's configuration object holds by default, and the code its defaults never run.

Model code builds itself from a configuration object: `self.encoder = A(config) if
config.do_stable_layer_norm else B(config)`, or an `if/elif` chain on
`self.config._attn_implementation == "flex_attention"`. Only one arm runs for a given
configuration; the linter judges the configuration class's defaults. A settings test
(summary.Guard) on `<config>.<attr>` is decided when `<config>` is known to hold an instance of a
project class that is not a module (its parameter's annotation, the argument its constructor got
on the way the region walk came, or a `config_class = X` / `config: X` in the class body) and
that class stores a literal default in `self.<attr>` (its `__init__` parameter's default,
`kwargs.pop("x", default)`, or a class-level default of a dataclass-style config). A module's
`self.seed` is that setting when its one assignment, in `__init__`, copies it (`self.seed =
config.seed`). What the default does not run is reported as a `possible` break with the setting
that enables it (finding.Region.gate), never dropped; anything not known keeps today's answer.

Annotations and parameter defaults come from the index (FunctionHeader.signature, in the
summary), and so do `__init__`'s own copies (FunctionSummary.stores); a class body is read as
content (ModuleIndex.content_module): a cached result then depends on that file's bytes.
"""

from __future__ import annotations

from typing import Iterable

import libcst as cst

from breaklint.index.imports import dotted
from breaklint.index.conditions import NO_LITERAL as _NO_LITERAL, cst_literal as _literal
from breaklint.index.project import Build, ClassInfo, FunctionInfo, ModuleIndex, Parameter, ProjectIndex
from breaklint.index.summary import Guard, Guards

# Settings whose default no class body states, by the class that declares them (qualified name).
# transformers' PretrainedConfig stores `attn_implementation=None` behind a property; the model's
# PreTrainedModel.__init__ then sets it (modeling_utils.get_correct_attn_implementation, 4.57):
# None becomes "sdpa", and "eager" when SDPA cannot dispatch.
KNOWN_DEFAULTS: dict[tuple[str, str], tuple[object, ...]] = {
    ("transformers.configuration_utils.PretrainedConfig", "_attn_implementation"): ("sdpa", "eager"),
}
_NEGATED = {"==": "!=", "!=": "==", "is": "is not", "is not": "is", "in": "not in", "not in": "in"}
_MAX_DEPTH = 4


class Defaults:
    """The default configuration's answers for one region walk. `note(build)` tells it how the
    walk came to each instance (so an unannotated `config` parameter is known by its argument)."""

    def __init__(self, project: ProjectIndex) -> None:
        self.project = project
        self.builds: dict[ClassInfo, list[Build]] = {}
        self._attr_memo: dict[tuple[int, str], tuple[object, ...] | None] = {}
        # The noted classes by their `__init__`, in the order they were first noted; the first
        # `_sorted` of `builds` are in it (each class's `__init__` looked up once, not per question).
        self._by_init: dict[FunctionInfo | None, list[ClassInfo]] = {}
        self._sorted = 0
        # The noted classes by each class of their MRO, in `builds`' order; the first `_ancestry`
        # of `builds` are in it (_copied_setting asks of every class it meets: a pass over all
        # the builds each time was a fifth of the regions' time on transformers). Kept apart from
        # `_by_init`: each index's lookups (`__init__`, the MRO) are reads a cached result depends
        # on, made only when its question is asked.
        self._by_ancestor: dict[ClassInfo, list[ClassInfo]] = {}
        self._ancestry = 0
        self._noted = 0  # builds noted so far: param_values' answers hold until it grows
        self._values: dict[tuple[FunctionInfo, str], tuple[int, list[tuple[cst.BaseExpression, FunctionInfo | None,
                                                                         ModuleIndex]]]] = {}

    def note(self, build: Build) -> None:
        found = self.builds.setdefault(build.cls, [])
        if build not in found:
            found.append(build)
            self._noted += 1
            self.project.learnt()  # param_values may answer otherwise now

    def _built_through(self, init: FunctionInfo) -> list[ClassInfo]:
        """The classes noted so far whose `__init__` is `init`, in `builds`' order."""
        if self._sorted < len(self.builds):
            for cls in list(self.builds)[self._sorted:]:
                self._by_init.setdefault(self.project.method(cls, "__init__"), []).append(cls)
            self._sorted = len(self.builds)
        return self._by_init.get(init, [])

    def _built_below(self, cls: ClassInfo) -> list[ClassInfo]:
        """The classes noted so far that have `cls` in their MRO (itself included), in `builds`' order."""
        if self._ancestry < len(self.builds):
            for built in list(self.builds)[self._ancestry:]:
                for ancestor in dict.fromkeys(self.project.mro(built)):
                    self._by_ancestor.setdefault(ancestor, []).append(built)
            self._ancestry = len(self.builds)
        return self._by_ancestor.get(cls, [])

    def param_values(self, fn: FunctionInfo, name: str) -> list[tuple[cst.BaseExpression, FunctionInfo | None, ModuleIndex]]:
        """What parameter `name` of `fn` may hold (project.ParamValues): for an `__init__` whose
        class the walk reached through builds, the argument each build passes, or the default
        where it passes none; otherwise the default."""
        kept = self._values.get((fn, name))
        if kept is not None and kept[0] == self._noted:
            return kept[1]
        found = self._param_values(fn, name)
        self._values[(fn, name)] = (self._noted, found)
        return found

    def _param_values(self, fn: FunctionInfo, name: str
                      ) -> list[tuple[cst.BaseExpression, FunctionInfo | None, ModuleIndex]]:
        param = _param(fn, name)
        default = [(param.default, fn.parent, fn.module)] if param is not None and param.default is not None else []
        is_init = fn.name == "__init__" and fn.class_info is not None
        builds = [build for cls in self._built_through(fn) for build in self.builds[cls]] if is_init else []
        values: list[tuple[cst.BaseExpression, FunctionInfo | None, ModuleIndex]] = []
        for build in builds:
            arg = _argument(build.call, fn, name) if build.call is not None else None
            for value in [(arg, build.scope, build.module)] if arg is not None else default:
                if value not in values:
                    values.append(value)
        passed_up = self._passed_up(fn, name) if is_init else []
        values.extend(value for value in passed_up if value not in values)
        return values if builds or passed_up else default  # the default: evaluated where the def is

    def _passed_up(self, init: FunctionInfo, name: str
                   ) -> list[tuple[cst.BaseExpression, FunctionInfo | None, ModuleIndex]]:
        """What the noted subclasses' own `__init__`s pass `init`'s parameter `name` in their
        `super().__init__(...)`: `FasterRCNN.__init__` builds `rpn = RegionProposalNetwork(...)`
        and calls `super().__init__(backbone, rpn, ...)`, so `GeneralizedRCNN.__init__`'s `rpn`
        (stored as `self.rpn`) holds it. Each argument is read in the `__init__` that passes it."""
        owner = init.class_info
        assert owner is not None
        found: list[tuple[cst.BaseExpression, FunctionInfo | None, ModuleIndex]] = []
        for built in self._built_below(owner):
            for klass in self.project.mro(built):
                if klass is owner:
                    break
                own = klass.methods.get("__init__")
                if own is None or self.project.method(klass, "__init__", skip_self=True) is not init:
                    continue
                for call in own.calls:
                    if _calls_super_init(call):
                        arg = _argument(call, init, name)
                        if arg is not None and (arg, own, klass.module) not in found:
                            found.append((arg, own, klass.module))
        return found

    # --- tests -------------------------------------------------------------------------------
    def gate(self, groups: Iterable[tuple[Guards, FunctionInfo | None]]) -> str:
        """Why the default configuration does not run what these guards guard ("" when it may):
        the first guard it fails, as "`config.x` is true; the default is False"."""
        for guards, scope in groups:
            if scope is None:
                continue
            for guard in guards:
                why = self._fails(guard, scope)
                if why:
                    return why
        return ""

    def _fails(self, guard: Guard, scope: FunctionInfo) -> str:
        return fails(guard, self.values(guard.subject, scope))

    def settings(self, fn: FunctionInfo) -> tuple[tuple[str, tuple[object, ...]], ...]:
        """The default values of the settings fn's own calls are guarded by (Region.settings)."""
        subjects = dict.fromkeys(guard.subject for guards in fn.call_guards.values() for guard in guards)
        found = []
        for subject in subjects:
            values = self.values(subject, fn)
            if values:
                found.append((subject, values))
        return tuple(found)

    def values(self, subject: str, scope: FunctionInfo) -> tuple[object, ...] | None:
        """The values `subject` (`config.x`, `self.config.x`, or `self.x` copied from one of
        those in `__init__`) may hold by default, or None."""
        *base, attr = subject.split(".")
        if len(base) == 1:
            copied = self._copied_setting(base[0], attr, scope)
            if copied is not None:
                return self.values(*copied)
        cls = self._config_class(base, scope)
        return self.attr_defaults(cls, attr) if cls is not None else None

    def _copied_setting(self, base: str, attr: str, scope: FunctionInfo) -> tuple[str, FunctionInfo] | None:
        """`self.<attr>`, when its one assignment is `self.<attr> = config.y` (or `self.config.y`)
        at the top of `__init__`: that setting, read in `__init__`. An attribute any other
        statement assigns (`_set_num_buckets` in Reformer), in this class, a base or a subclass the
        walk built, is the module's own state."""
        fn: FunctionInfo | None = scope
        while fn is not None and fn.class_info is None:
            fn = fn.parent  # a closure reads its method's `self`
        if fn is None or base != fn.self_name:
            return None
        cls = fn.class_info
        assert cls is not None
        assigned = self.project.attr_values(cls, attr)
        if len(assigned) != 1:
            return None
        owner, value = assigned[0]
        init = owner.methods.get("__init__")
        source = dotted(value.expr)
        if init is None or source is None or init.self_name is None:
            return None
        root, *rest = source.split(".")
        is_setting = (root in init.header.params and root != init.self_name and len(rest) == 1) or \
            (root == init.self_name and len(rest) == 2)
        if not is_setting:  # most attributes: before the walk over every class built so far
            return None
        if any(len(self.project.attr_values(built, attr)) != 1 for built in self._built_below(cls)):
            return None
        if not _stored_in_init(owner, init, attr, value.expr):
            return None
        return source, init

    # --- which class the configuration object is ---------------------------------------------
    def _config_class(self, base: list[str], scope: FunctionInfo) -> ClassInfo | None:
        fn: FunctionInfo | None = scope
        if len(base) == 1:
            while fn is not None and base[0] not in fn.header.params:
                fn = fn.parent  # a closure reads its parent's parameter
            if fn is None or base[0] == fn.self_name:  # `self.x`: the module's own state, not a setting
                return None
            found = self.param_class(fn, base[0], 0)
        elif len(base) == 2:
            while fn is not None and fn.class_info is None:
                fn = fn.parent
            found = None
            if fn is not None and base[0] == fn.self_name:
                found = self.attr_class(fn.class_info, base[1], 0)  # type: ignore[arg-type]
        else:
            return None
        return found if found is not None and not self.project.is_nn_module(found) else None

    def attr_class(self, cls: ClassInfo, attr: str, depth: int) -> ClassInfo | None:
        """The one class `self.<attr>` holds (an `__init__` parameter stored as is), or None."""
        found: set[ClassInfo] = set()
        for klass, value in self.project.attr_values(cls, attr):
            expr = value.expr
            init = klass.methods.get("__init__")
            if isinstance(expr, cst.Name) and init is not None and expr.value in init.header.params:
                held = self.param_class(init, expr.value, depth + 1)
            elif isinstance(expr, cst.Call) and not expr.args:
                held = self.project.resolve_class(expr.func, klass.module)
            else:
                held = None
            if held is None:
                return None
            found.add(held)
        return found.pop() if len(found) == 1 else None

    def param_class(self, fn: FunctionInfo, name: str, depth: int) -> ClassInfo | None:
        """The class a parameter holds: its annotation; for an `__init__`, the arguments of the
        builds the walk followed, or the class body's `config_class = X` or `config: X`
        (transformers)."""
        if depth > _MAX_DEPTH:
            return None
        param = _param(fn, name)
        annotation = param.annotation if param is not None else None
        if annotation is not None:
            found = self.project.resolve_class(annotation, fn.module)
            if found is not None:
                return found
        owner = fn.class_info
        if owner is None or fn.name != "__init__":
            return None
        classes: set[ClassInfo] = set()
        for cls in self._built_through(fn):
            for build in self.builds[cls]:
                if build.call is None:
                    continue  # an instance passed down as an argument: its build is noted too (pass_instances)
                held = self._argument_class(build, fn, name, depth)
                if held is None:
                    return None
                classes.add(held)
        if len(classes) == 1:
            return classes.pop()
        for klass in self.project.mro(owner):
            # transformers <4.56 names the class, `config_class = X`; later ones annotate what
            # PreTrainedModel.__init__ stores the parameter in, `config: X`.
            declared = _class_level(klass, "config_class") or _class_level(klass, name, annotation=True)
            if declared is not None:
                return self.project.resolve_class(declared, _content(klass.module))
        return None

    def _argument_class(self, build: Build, init: FunctionInfo, name: str, depth: int) -> ClassInfo | None:
        arg = _argument(build.call, init, name) if build.call is not None else None
        if arg is None:
            return None
        if isinstance(arg, cst.Name) and build.scope is not None and arg.value in build.scope.header.params:
            return self.param_class(build.scope, arg.value, depth + 1)
        if isinstance(arg, cst.Attribute) and build.scope is not None and isinstance(arg.value, cst.Name) \
                and arg.value.value == build.scope.self_name and build.scope.class_info is not None:
            return self.attr_class(build.scope.class_info, arg.attr.value, depth + 1)
        if isinstance(arg, cst.Call):
            return self.project.resolve_class(arg.func, build.module)
        return None

    # --- what the configuration class stores --------------------------------------------------
    def attr_defaults(self, cls: ClassInfo, attr: str) -> tuple[object, ...] | None:
        key = (id(cls), attr)
        if key not in self._attr_memo:
            self._attr_memo[key] = self._attr_defaults(cls, attr)
        return self._attr_memo[key]

    def _attr_defaults(self, cls: ClassInfo, attr: str) -> tuple[object, ...] | None:
        mro = self.project.mro(cls)
        for klass in mro:
            known = KNOWN_DEFAULTS.get((f"{klass.module.name}.{klass.qualname}", attr))
            if known is not None:
                return known
        if any(attr in klass.methods for klass in mro):
            return None  # a property: what it returns is not a stored default
        values: list[object] = []
        for klass, value in self.project.attr_values(cls, attr):
            found = self._stored(klass, value.expr)
            if found is _NO_LITERAL:
                return None
            values.append(found)
        for klass in mro:
            declared = _class_level(klass, attr)
            if declared is not None:
                found = _literal(declared)
                if found is _NO_LITERAL:
                    return None
                values.append(found)
        unique: list[object] = []
        for value in values:
            if not any(value == seen and type(value) is type(seen) for seen in unique):
                unique.append(value)
        return tuple(unique) or None

    def _stored(self, klass: ClassInfo, expr: cst.BaseExpression) -> object:
        """The literal `self.x = expr` stores by default: a literal, a parameter's default, or
        `kwargs.pop("x", default)` / `kwargs.get(...)`."""
        found = _literal(expr)
        if found is not _NO_LITERAL:
            return found
        init = klass.methods.get("__init__")
        if init is None:
            return _NO_LITERAL
        if isinstance(expr, cst.Name) and expr.value in init.header.params:
            param = _param(init, expr.value)
            if param is not None and param.default is not None:
                return _literal(param.default)
            return _NO_LITERAL
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in ("pop", "get") \
                and isinstance(expr.func.value, cst.Name) and expr.func.value.value in init.header.params \
                and len(expr.args) == 2:
            return _literal(expr.args[1].value)
        return _NO_LITERAL


def _content(module: ModuleIndex) -> ModuleIndex:
    return module.content_module


def _param(fn: FunctionInfo, name: str) -> Parameter | None:
    return fn.header.parameter(name)


def _calls_super_init(call: cst.Call) -> bool:
    """`super().__init__(...)` (also `super(Cls, self).__init__(...)`)."""
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value == "__init__" and isinstance(func.value, cst.Call) \
        and isinstance(func.value.func, cst.Name) and func.value.func.value == "super"


def _argument(call: cst.Call, init: FunctionInfo, name: str) -> cst.BaseExpression | None:
    """The argument `call` (a constructor call) passes for `init`'s parameter `name`."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    positional = [p.name for p in init.header.signature if p.positional][1:]  # after self
    if name not in positional:
        return None
    index = positional.index(name)
    plain = [arg for arg in call.args if arg.keyword is None]
    if any(arg.star for arg in plain[: index + 1]):
        return None
    return plain[index].value if index < len(plain) else None


def _stored_in_init(klass: ClassInfo, init: FunctionInfo, attr: str, expr: cst.BaseExpression) -> bool:
    """Whether `__init__` stores `self.<attr> = <expr>` in a statement of its own body, outside
    any `if`/loop/`try`: the value every instance holds (the pre-pass's FunctionSummary.stores:
    the def is not parsed for it)."""
    if init.qualname != f"{klass.qualname}.__init__" or init.module.name != klass.module.name:
        return False  # an inherited `__init__`: the class's own body stores nothing
    return (attr, dotted(expr)) in init.stores


def _class_level(klass: ClassInfo, name: str, annotation: bool = False) -> cst.BaseExpression | None:
    """`name = value` or `name: T = value` in the class body (from the index), else None; with
    `annotation`, the `T` of a bare `name: T`."""
    return klass.body_binding(name, annotation)


def fails(guard: Guard, values: tuple[object, ...] | None) -> str:
    """Why the default values fail the guard, "`config.x` is true; the default is False" ("" when
    they may not: unknown, mixed, or met)."""
    if not values:
        return ""
    results = {_test(guard, value) for value in values}
    if len(results) != 1 or None in results or results.pop() == guard.holds:
        return ""
    return f"{_condition(guard)}; the default is {' or '.join(_show(v) for v in values)}"


def _test(guard: Guard, value: object) -> bool | None:
    op, literal = guard.op, guard.value
    try:
        if op == "truthy":
            return bool(value)
        if op in ("==", "is"):
            return value == literal and type(value) is type(literal) if op == "is" else value == literal
        if op in ("!=", "is not"):
            return not (value == literal and (op == "!=" or type(value) is type(literal)))
        if op == "in":
            return value in literal  # type: ignore[operator]
        if op == "not in":
            return value not in literal  # type: ignore[operator]
    except TypeError:
        return None
    return None


def _condition(guard: Guard) -> str:
    """When the guarded code runs, in words: "`config.x` is true", "`cfg.impl == 'flex'`"."""
    if guard.op == "truthy":
        return f"`{guard.subject}` is {'true' if guard.holds else 'false'}"
    op = guard.op if guard.holds else _NEGATED[guard.op]
    return f"`{guard.subject} {op} {_show(guard.value)}`"


def _show(value: object) -> str:
    return repr(value)
