"""The guard model: which recompiles a file's own calls and writes will cause.

Dynamo guards a compiled frame on what it read while tracing: Python scalars passed in, the
globals and module attributes it read, tensor dtypes, `training` flags, submodule types. The
pre-pass records, for a file that compiles something, every call of a name bound to a compiled
callable and every write to what such a frame guards on (index/summary.py, `GuardFacts`). This
module turns those facts into predictions: the line that changes a guarded value, the guard text
Dynamo prints, and how many recompiles follow.

The counts are torch 2.13's, measured (docs/rules and testdata/rules/BL21x prove each on real
Dynamo): an `int` or `float` argument that changes compiles once more and is then dynamic
(automatic dynamic shapes); a `bool`, `str`, None-ness, a tuple's length, a dtype, a list's length
compile once per distinct value; a module's `float` attribute once, its `int`/`bool`/`str`
attributes once per value; a global `int` once per value, a global `float` once; a tensor whose
size changes in a loop once (then that dimension is dynamic). Past `recompile_limit` (8) distinct
values the frame runs eagerly for good (`LIMIT`).
"""

from __future__ import annotations

import ast
import dataclasses
import re
from dataclasses import dataclass
from typing import Callable, Iterable

import libcst as cst

from breaklint.index.project import ClassInfo, FunctionInfo, ModuleIndex, ProjectIndex
from breaklint.infra.lazy import parse_fragment
from breaklint.infra.quiet_ast import parse_expression
from breaklint.index.summary import CompiledCall, CompiledName, Loop, Place, StateWrite

RECOMPILE_LIMIT = 8  # torch._dynamo.config.recompile_limit's default
LIMIT = -1  # recompiles on every new value until the limit, then runs eagerly
_CASTS = {"half": "Half", "float": "Float", "double": "Double", "bfloat16": "BFloat16"}
_DTYPES = {"torch.float16": "Half", "torch.half": "Half", "torch.float32": "Float", "torch.float": "Float",
           "torch.float64": "Double", "torch.double": "Double", "torch.bfloat16": "BFloat16"}
_FACTORIES = ("randn", "rand", "zeros", "ones", "empty", "full", "arange", "randint")
# Submodules whose forward reads `self.training` (so `.eval()` / `.train()` changes a guard).
_TRAINING_MODULES = re.compile(r"\b(Dropout\d?d?|AlphaDropout|BatchNorm\d?d?|SyncBatchNorm|InstanceNorm\d?d|"
                               r"LazyBatchNorm\d?d|RReLU)\s*\(")
_MODE_SWITCHES = ("eval", "train")
_CONCATS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.hstack", "torch.vstack"})
_DTYPE_SWITCHES = ("half", "double", "bfloat16", "to")


@dataclass(frozen=True)
class Prediction:
    """One predicted recompile cause: `code` the rule that reports it, `place` the line that
    changes the guarded value, `recompiles` how many (LIMIT: every new value until the limit)."""

    code: str
    place: Place
    callee: str
    cause: str
    guard: str
    recompiles: int
    dynamic_after: bool  # the value is dynamic after its one recompile (an int, a float, a size)
    fix: str


def count_phrase(recompiles: int, dynamic_after: bool = False) -> str:
    """How a finding says how many recompiles: the ground-truth test reads markers with it."""
    if recompiles == LIMIT:
        return f"recompiles on every new value until recompile_limit ({RECOMPILE_LIMIT}), then runs eagerly"
    then = ", then treats the value as dynamic" if dynamic_after else ""
    if recompiles == 1:
        return "recompiles once" + then
    return f"recompiles {recompiles} times" + (then or " (once per distinct value)")


def _counted(distinct: int) -> int:
    """Recompiles for `distinct` values each specialised on: all but the first, up to the limit."""
    return LIMIT if distinct - 1 >= RECOMPILE_LIMIT else distinct - 1


def _literal(text: str) -> tuple[bool, object]:
    try:
        return True, ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def _kind(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, tuple):
        return "tuple"
    return "other"


@dataclass(frozen=True)
class _Seen:
    """What one call passes in one parameter: literal values (several for a loop variable over
    a literal sequence), a cast's dtype, or just whether it is None."""

    call: CompiledCall
    values: tuple[object, ...] = ()
    known: bool = False  # values are every value it passes
    kind: str = "other"  # of the values; "other" for an expression
    dtype: str = ""  # a tensor cast at the end of the expression (`x.half()` -> "Half")
    base: str = ""  # the expression under the cast (`x`), or the expression itself
    unbounded: bool = False  # a loop over a range whose length is not known (ints only)
    computed: str = ""  # a Python number read from a tensor's data (`int(x.sum())`, `t.item()`)
    layout: str = ""  # a view whose strides differ from its base's (`x.t()`, `x[:, ::2]`); "" contiguous


def _loop_values(text: str, call: CompiledCall) -> _Seen | None:
    """A loop variable: the elements of the literal sequence it runs over, or a range's ints."""
    for loop in reversed(call.loops):
        if loop.target != text:
            continue
        ok, values = _literal(loop.iter)
        if ok and isinstance(values, (list, tuple)) and values:
            kinds = {_kind(v) for v in values}
            return _Seen(call, tuple(values), True, kinds.pop() if len(kinds) == 1 else "other", base=text)
        match = re.fullmatch(r"range\((.*)\)", loop.iter)
        if match:
            ok, bounds = _literal(f"({match.group(1)},)")
            if ok and all(isinstance(b, int) for b in bounds):
                return _Seen(call, tuple(range(*bounds)), True, "int", base=text)
            return _Seen(call, (), False, "int", base=text, unbounded=True)
        return None
    return None


def _seen(text: str, call: CompiledCall, binding: Callable[[str, CompiledCall], str | None] | None = None) -> _Seen:
    """What `text` passes; `binding` gives the one value a plain name is bound to in the call's
    function (`n = int(x.sum())` before `f(x, n)`)."""
    bound = binding(text, call) if binding is not None and re.fullmatch(r"\w+", text) else None
    computed = _from_tensor_data(bound if bound is not None else text)
    if computed:
        return _Seen(call, base=bound if bound is not None else text, computed=computed)
    layout = _layout(text)
    if layout is not None:
        return _Seen(call, base=layout[0], layout=layout[1])
    ok, value = _literal(text)
    if ok:
        return _Seen(call, (value,), True, _kind(value), base=text)
    looped = _loop_values(text, call)
    if looped is not None:
        return looped
    shape = _shape_of(text)
    if shape is not None:
        return _Seen(call, (shape,), False, shape[0], base=text)
    match = re.fullmatch(r"(?P<base>.+)\.(?P<cast>half|float|double|bfloat16)\(\)", text)
    if match:
        return _Seen(call, dtype=_CASTS[match["cast"]], base=match["base"])
    match = re.fullmatch(r"(?P<base>.+)\.to\((?:dtype=)?(?P<dtype>torch\.\w+)\)", text)
    if match and match["dtype"] in _DTYPES:
        return _Seen(call, dtype=_DTYPES[match["dtype"]], base=match["base"])
    return _Seen(call, base=text)


_REDUCTIONS = ("sum", "max", "min", "mean", "amax", "amin", "argmax", "argmin", "norm", "prod", "std", "var",
               "count_nonzero", "median", "any", "all")


def _from_tensor_data(text: str) -> str:
    """`int(x.sum())`, `float(loss)`-style reads of a reduction, `t.item()`: a Python number that
    follows the tensor's data (its kind: "int", "float", "bool", "number"), or ""."""
    try:
        node = parse_expression(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # hostile text: nothing known
        return ""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item" \
            and not node.args:
        return "number"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "float", "bool") \
            and len(node.args) == 1 and not node.keywords:
        inner = node.args[0]
        reads = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                    and (n.func.attr == "item" or n.func.attr in _REDUCTIONS) for n in ast.walk(inner))
        return node.func.id if reads else ""
    return ""


_TRANSPOSES = ("t", "transpose", "permute", "movedim", "swapaxes", "swapdims", "mT", "T")


def _layout(text: str) -> tuple[str, str] | None:
    """(base, layout) for a view whose strides are not its base's (`x.t()`, `x.transpose(0, 1)`,
    `x[:, ::2]`; layout the expression itself), or (base, "") for `x.contiguous()`; None for
    anything else."""
    try:
        node = parse_expression(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # hostile text: no layout known
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "contiguous" \
            and not node.args and _plain(node.func.value):
        return ast.unparse(node.func.value), ""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _TRANSPOSES \
            and _plain(node.func.value):
        return ast.unparse(node.func.value), ast.unparse(node)
    if isinstance(node, ast.Attribute) and node.attr in ("T", "mT") and _plain(node.value):
        return ast.unparse(node.value), ast.unparse(node)
    if isinstance(node, ast.Subscript) and _plain(node.value):
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if any(isinstance(part, ast.Slice) and part.step is not None for part in parts):
            return ast.unparse(node.value), ast.unparse(node)
    return None


def _plain(node: ast.AST) -> bool:
    """A name or a dotted attribute chain (`x`, `batch.images`)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _shape_of(text: str) -> tuple[str, object] | None:
    """("list", length) for a list display, ("rank", n) for `torch.randn(4, 8)` with literal sizes,
    ("dict", keys) for a dict display with string keys."""
    try:
        node = parse_expression(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # hostile text: no shape known
        return None
    if isinstance(node, ast.List) and not any(isinstance(e, ast.Starred) for e in node.elts):
        return ("list", len(node.elts))
    if isinstance(node, ast.Dict) and node.keys and all(isinstance(k, ast.Constant) and isinstance(k.value, str)
                                                         for k in node.keys):
        return ("dict", tuple(k.value for k in node.keys))  # type: ignore[union-attr, return-value]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _FACTORIES[:5] \
            and _dotted_text(node.func.value) == "torch" and node.args and not node.keywords \
            and all(isinstance(a, ast.Constant) and isinstance(a.value, int) for a in node.args):
        return ("rank", len(node.args))
    return None


def _dotted_text(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else ""


def _guard_value(value: object) -> str:
    return repr(value)


def _bound(call: CompiledCall, params: list[tuple[str, str | None]] | None) -> dict[str, str]:
    """Parameter -> the text passed (or its default); by position when the signature is unknown."""
    if any(keyword in ("*", "**") for keyword, _ in call.args):
        return {}
    passed: dict[str, str] = {}
    positional = [text for keyword, text in call.args if keyword is None]
    if params is None:
        passed.update({f"#{i}": text for i, text in enumerate(positional)})
        passed.update({keyword: text for keyword, text in call.args if keyword is not None})
        return passed
    for (name, _), text in zip(params, positional):
        passed[name] = text
    passed.update({keyword: text for keyword, text in call.args if keyword is not None})
    for name, default in params:
        if name not in passed and default is not None:
            passed[name] = default
    return passed


class GuardModel:
    """The predictions for one module: built from its GuardFacts and what its compiled code reads."""

    def __init__(self, module: ModuleIndex, project: ProjectIndex, regions: Iterable[FunctionInfo],
                 names_read: Callable[[FunctionInfo], set[str]], resolve: Callable[[str], str | None]) -> None:
        self.module, self.project = module, project
        self.facts = module.guard_facts
        self.regions = [fn for fn in regions if fn.module is module or fn.module.name == module.name]
        self.names_read = names_read
        self.resolve = resolve  # a dotted name's qualified name (`t.compile` -> `torch.compile`)

    # --- what each compiled name is -----------------------------------------------------------
    def _function(self, name: CompiledName) -> FunctionInfo | None:
        return self.module.functions.get(name.target)

    def _class(self, name: CompiledName) -> ClassInfo | None:
        """The class of the module a compiled name wraps: `torch.compile(Net())`, `net = Net();
        torch.compile(net)`, `net.compile()`."""
        text = name.target
        scope = self.module.defined[name.place.scope] if name.place.scope >= 0 else None
        bindings = scope.assigns if scope is not None and text in scope.assigns else self.module.assigns
        if text in bindings:
            # `model = torch.compile(model)` rebinds the name: what it held before is the module.
            values = [v for v in bindings[text] if not _is_compile(_text(v.expr), self.resolve)]
            if len(values) != 1 or values[0].iterated:
                return None
            expr = values[0].expr
        else:
            try:
                expr = parse_fragment(text)  # a target written as a call: `torch.compile(Net())`
            except Exception:  # noqa: BLE001 - a target that does not parse names no class
                return None
        if not isinstance(expr, cst.Call):
            return None
        return self.project.resolve_class(expr.func, self.module)

    def compiled(self, callee: str) -> FunctionInfo | None:
        """The function a compiled name runs: the compiled function, or the module's forward."""
        name = next((n for n in self._unique_names() if n.name == callee), None)
        if name is None:
            return None
        fn = self._function(name)
        cls = self._class(name) if fn is None else None
        return cls.methods.get("forward") if cls is not None else fn

    def _params(self, name: CompiledName) -> list[tuple[str, str | None]] | None:
        fn = self._function(name)
        cls = self._class(name) if fn is None else None
        if cls is not None:
            fn = cls.methods.get("forward")
        if fn is None:
            return None
        skip = 1 if fn.header.self_name else 0
        signature = fn.header.signature
        params = [p for p in signature if p.positional][skip:] + [p for p in signature if not p.positional]
        return [(p.name, _text(p.default) if p.default is not None else None) for p in params]

    # --- predictions ----------------------------------------------------------------------------
    def predictions(self) -> list[Prediction]:
        found: list[Prediction] = []
        for name in self._unique_names():
            calls = [c for c in self.facts.calls if c.callee == name.name]
            found.extend(self._arguments(name, calls))
            found.extend(self._growing(name, calls))
            found.extend(self._module_state(name, calls))
            found.extend(self._containers(name, calls))
        found.extend(self._globals())
        found.extend(self._closures())
        found.extend(self._imported())
        cast = {p.callee for p in found if p.code == "BL212" and p.guard == "dtype mismatch"}
        found = [p for p in found if not (p.code == "BL211" and p.guard == "dtype mismatch" and p.callee in cast)]
        return sorted(found, key=lambda p: (p.place.line, p.place.col, p.code))

    def _unique_names(self) -> list[CompiledName]:
        """Compiled names bound once in the file (a rebinding makes a new callable: no shared cache)."""
        counts: dict[str, int] = {}
        for name in self.facts.names:
            counts[name.name] = counts.get(name.name, 0) + 1
        return [name for name in self.facts.names if counts[name.name] == 1]

    def _arguments(self, name: CompiledName, calls: list[CompiledCall],
                   binding: Callable[[str, CompiledCall], str | None] | None = None) -> list[Prediction]:
        """`binding` reads the call sites' own bindings (another module's, for imported calls)."""
        params = self._params(name)
        by_param: dict[str, list[_Seen]] = {}
        for call in calls:
            for param, text in _bound(call, params).items():
                by_param.setdefault(param, []).append(_seen(text, call, binding or self._binding))
        found = []
        dynamic = _option(name.options, "dynamic")
        for param, seen in by_param.items():
            shown = param if not param.startswith("#") else f"argument {int(param[1:]) + 1}"
            prediction = _argument_prediction(name.name, param, shown, seen, dynamic)
            if prediction is not None:
                found.append(prediction)
        return found

    def _containers(self, name: CompiledName, calls: list[CompiledCall]) -> list[Prediction]:
        """A list or dict passed to the compiled callable and changed between its calls (`xs.append`,
        `batch["mask"] = m`): Dynamo guards a list's length and a dict's length and keys, so each
        change compiles again (lists and dicts are not made dynamic; measured, torch 2.13)."""
        params = self._params(name)
        found = []
        done: set[str] = set()
        for write in self.facts.writes:
            if write.subject in done or not (write.action == "local-item" or
                                              (write.action == "method" and write.name in _CONTAINER_METHODS)):
                continue
            mine = [c for c in calls if c.place.scope == write.place.scope
                    and any(text == write.subject for _, text in c.args)]
            if not mine:
                continue
            param = next((p for p, text in _bound(mine[0], params).items() if text == write.subject), None)
            initial = _shape_of(self._binding(write.subject, mine[0]) or "")
            if write.action == "local-item":
                ok, key = _literal(write.name)
                if not ok or not isinstance(key, str) or (initial is not None and initial[0] == "dict"
                                                          and key in initial[1]):  # type: ignore[operator]
                    continue  # an index, or a key the dict already has: its length and keys stay
            if param is None:
                continue
            count = self._changes(write, mine)
            if count == 0:
                continue
            done.add(write.subject)
            shown = param if not param.startswith("#") else f"argument {int(param[1:]) + 1}"
            is_dict = write.action == "local-item" or write.name in ("update", "setdefault", "popitem") or \
                (initial is not None and initial[0] == "dict")
            size = len(initial[1]) if initial is not None and initial[0] == "dict" else \
                initial[1] if initial is not None and initial[0] == "list" else None  # type: ignore[arg-type]
            guard = (f"len({param}) != {size}" if is_dict else f"len({param}) == {size}") if size is not None \
                else f"len({param})"
            change = f"`{write.subject}[{write.name}] = ...`" if write.action == "local-item" else \
                f"`{write.subject}.{write.name}(...)`"
            found.append(Prediction("BL211", write.place, name.name,
                                    f"{change} changes the {'keys' if is_dict else 'length'} of `{shown}` between calls",
                                    guard, count, False,
                                    "pass a container of the same structure every time (preallocate, pad, or stack "
                                    "into one tensor), or keep the changing part out of the compiled call"))
        return found

    def _changes(self, write: StateWrite, calls: list[CompiledCall]) -> int:
        """How many calls see the container changed: every iteration of a loop both are in (its
        length when known, else until the limit), or each call after a write between calls."""
        looped = next((c for c in calls if c.loops and c.loops[-1] in write.loops), None)
        if looped is not None:
            length = _loop_length(looped.loops[-1])
            return LIMIT if length is None else _counted(length)
        ordered = sorted(calls, key=lambda c: (c.place.line, c.place.col))
        changed = sum(1 for before, after in zip(ordered, ordered[1:])
                      if before.place.line < write.place.line < after.place.line)
        return changed if changed < RECOMPILE_LIMIT else LIMIT

    def _closures(self) -> list[Prediction]:
        """A closure cell the compiled function reads, rebound through `nonlocal` by a setter its
        factory returns, called between the compiled calls (torch 2.13 guards the cell's value
        like a global's: an int or float compiles once more and is then dynamic (never again
        with the compile's dynamic=True, once per value with dynamic=False: 2 -> 3 -> 4
        recompiled 1 / 0 / 2 times), a bool or str once per value)."""
        found = []
        names = {n.target: n for n in self._unique_names()}
        for write in self.facts.writes:
            if write.action != "nonlocal" or write.place.scope < 0:
                continue
            setter = self.module.defined[write.place.scope]
            factory = setter.parent
            if factory is None:
                continue
            readers = [fn for fn in factory.nested if fn is not setter and write.name in self.names_read(fn)]
            name = next((names[fn.name] for fn in readers if fn.name in names), None)
            if name is None:
                continue
            calls = [c for c in self.facts.calls if c.callee == name.name]
            cell = [v for v in factory.assigns.get(write.name, []) if not v.iterated]
            ok, first = _literal(_text(cell[0].expr)) if len(cell) == 1 else (False, None)
            kind = _kind(first) if ok else "other"
            if kind not in ("int", "float", "bool", "str"):
                continue
            setter_calls = [w for w in self.facts.writes if w.action == "call" and w.subject == setter.name
                            and _between_calls(w.place, calls)]
            values = [first] + [v for v in (self._cell_value(write, setter, c.value, first) for c in setter_calls)
                                if v is not None]
            distinct = list(dict.fromkeys(values))
            if not setter_calls or len(distinct) < 2 and len(values) == len(setter_calls) + 1:
                continue
            dynamic = _option(name.options, "dynamic")
            numeric = kind in ("int", "float")
            if numeric and dynamic is True:
                continue
            dynamic_after = numeric and dynamic is not False
            count = 1 if dynamic_after else _counted(max(len(distinct), 2))
            found.append(Prediction(
                "BL213", setter_calls[0].place, name.name,
                f"`{setter.name}(...)` rebinds the closure cell `{write.name}` (`nonlocal`, {first!r} in "
                f"`{factory.name}`) that the compiled code read", f"{write.name} == {_guard_value(first)}", count,
                dynamic_after,
                "pass the value as an argument (a tensor, or one compiled callable per value) instead of a closure "
                "cell that changes"))
        return found

    @staticmethod
    def _cell_value(write: StateWrite, setter: FunctionInfo, args: str, first: object) -> object | None:
        """The value a setter call stores: a literal, `not cell`, or the argument passed for the
        parameter it assigns; None when unknown."""
        ok, value = _literal(write.value)
        if ok:
            return value
        if re.fullmatch(rf"not\s+{re.escape(write.name)}", write.value.strip()) and isinstance(first, bool):
            return not first
        positional = setter.header.positional
        if write.value in positional:
            passed = [a.strip() for a in args.split(",")] if args else []
            index = positional.index(write.value)
            if index < len(passed):
                ok, value = _literal(passed[index])
                return value if ok else None
        return None

    def _imported(self) -> list[Prediction]:
        """Calls in this file of a compiled callable another module binds (`from .model import
        fast_fn`): the guards of that module's compiled name, with this file's call sites."""
        by_name: dict[str, list[CompiledCall]] = {}
        for call in self.facts.imported_calls:
            by_name.setdefault(call.callee, []).append(call)
        found = []
        for local, calls in by_name.items():
            qualified = self.module.imports.resolve_dotted(local)
            owner_name, _, attr = qualified.rpartition(".")
            owners = self.project.by_name.get(owner_name) or []
            owner = owners[0] if owners else None
            if owner is None or owner is self.module or not owner.guard_facts.names:
                continue
            theirs = GuardModel(owner, self.project, (), self.names_read, owner.imports.resolve_dotted)
            name = next((n for n in theirs._unique_names() if n.name == attr and n.place.scope < 0), None)
            if name is None:
                continue
            renamed = [CompiledCall(name.name, c.place, c.args, c.loops, c.grad_disabled) for c in calls]
            for prediction in theirs._arguments(name, renamed, self._binding):
                found.append(dataclasses.replace(prediction, callee=local))
        return found

    def _binding(self, name: str, call: CompiledCall) -> str | None:
        """The one expression `name` is bound to in the call's function, if exactly one."""
        if call.place.scope < 0:
            return None
        values = self.module.defined[call.place.scope].assigns.get(name, [])
        texts = {_text(v.expr) for v in values}  # an appended-to list is bound twice to the same display
        return texts.pop() if len(texts) == 1 and not any(v.iterated for v in values) else None

    def _growing(self, name: CompiledName, calls: list[CompiledCall]) -> list[Prediction]:
        """A call in a loop whose tensor argument's size follows the loop variable (`x[:, :t]`,
        `torch.randn(1, t)`): one recompile, then the size is dynamic (every size with
        dynamic=False; under dynamic=True, only the sizes 0 and 1 it starts at)."""
        dynamic = _option(name.options, "dynamic")
        found = []
        for call in calls:
            targets = {loop.target for loop in call.loops if re.fullmatch(r"\w+", loop.target)}
            over = _parameter_loop(call)
            if dynamic is False and over is not None and call.args:
                # An optimizer's step: each parameter has its own shape, and dynamic=False makes each
                # distinct shape (or rank) a compile of its own (measured: timm's Kron, torch 2.13).
                found.append(Prediction("BL210", call.place, name.name, f"it is called once per parameter (`for ... in "
                                        f"{over}`), and parameters differ in shape", "mismatch", LIMIT, False,
                                        "drop dynamic=False"))
                continue
            for index, (_, text) in enumerate(call.args):
                var = next((t for t in targets if _sized_by(text, t)), None)
                # Sizes 0 and 1 are always specialised, even under dynamic=True (measured, torch
                # 2.13: `x[:, :t]` for t from 1 recompiles once, from 0 twice, from 2 never).
                first = _first_size(text, var, call) if var is not None else None
                if dynamic is True:
                    if first is not None and first <= 1:
                        found.append(Prediction(
                            "BL214", call.place, name.name,
                            f"argument {index + 1} (`{text}`) starts at size {first} with the loop variable `{var}`, "
                            "and Dynamo specialises sizes 0 and 1 even under dynamic=True", _size_guard(text, var),
                            2 - first, True,
                            f"run the size-{'0 and size-1 steps' if first == 0 else '1 step'} outside the compiled "
                            "callable and start the loop at 2, or pad to a fixed size"))
                        break
                    continue
                if dynamic is False and (var is not None or self._grows(text, call)):
                    # Every new size compiles again: the evidence BL210's call form reports with.
                    found.append(Prediction("BL210", call.place, name.name, f"argument {index + 1} (`{text}`) changes "
                                            "size in the loop", "size mismatch at index", LIMIT, False,
                                            "drop dynamic=False"))
                    break
                if var is None and self._grows(text, call):
                    found.append(Prediction(
                        "BL214", call.place, name.name,
                        f"argument {index + 1} (`{text}`) grows in the loop (it is concatenated onto itself)",
                        "size mismatch at index", 1, True,
                        "expected (one recompile, then the dimension is dynamic); call torch._dynamo.mark_dynamic(x, "
                        "dim) on the first input to skip even that one, or preallocate and pass a fixed-size buffer"))
                    break
                if var is None:
                    continue
                found.append(Prediction(
                    "BL214", call.place, name.name,
                    f"argument {index + 1} (`{text}`) changes size with the loop variable `{var}`",
                    _size_guard(text, var), 2 if first == 0 else 1, True,
                    "expected (one recompile, then the dimension is dynamic); call "
                    "torch._dynamo.mark_dynamic(x, dim) on the first input to skip even that one, or pad to fixed sizes"))
                break
        return found

    def _grows(self, text: str, call: CompiledCall) -> bool:
        """`tokens` in a loop of a function that binds `tokens = torch.cat([tokens, ...], ...)`."""
        if not call.loops or call.place.scope < 0 or not re.fullmatch(r"\w+", text):
            return False
        fn = self.module.defined[call.place.scope]
        for value in fn.assigns.get(text, []):
            expr = value.expr
            if isinstance(expr, cst.Call) and self.resolve(_text(expr.func)) in _CONCATS \
                    and re.search(rf"\b{re.escape(text)}\b", _text(expr)):
                return True
        return False

    def _module_state(self, name: CompiledName, calls: list[CompiledCall]) -> list[Prediction]:
        if not calls or self._function(name) is not None:
            return []
        cls = self._class(name)
        if cls is None:
            return []
        subjects = {name.name, name.target}
        found = []
        floats: dict[tuple[str, str], list[tuple[StateWrite, str, float, float]]] = {}
        for write in self.facts.writes:
            head = write.subject.split(".")[0]
            if head not in subjects or not _between_calls(write.place, calls):
                continue
            changed = self._float_attribute(cls, write)
            if changed is not None:
                floats.setdefault((write.subject, write.name), []).append((write, *changed))
                continue
            prediction = self._module_write(name, cls, write)
            if prediction is not None:
                found.append(prediction)
        for writes in floats.values():
            prediction = self._float_attribute_writes(name, writes)
            if prediction is not None:
                found.append(prediction)
        return found

    def _float_attribute(self, cls: ClassInfo, write: StateWrite) -> tuple[str, float, float] | None:
        """(the text and value `__init__` gave, the value written) when `write` gives a float
        attribute the forward reads another float."""
        values = self._set_and_written(cls, write) if write.action == "attr" and "." not in write.subject else None
        if values is None:
            return None
        text, (ok_first, first), (ok_new, new) = values
        if not (ok_first and ok_new and _kind(first) == _kind(new) == "float" and first != new):
            return None
        return text, first, new  # type: ignore[return-value]

    def _set_and_written(self, cls: ClassInfo, write: StateWrite
                         ) -> tuple[str, tuple[bool, object], tuple[bool, object]] | None:
        """The one value `__init__` gives the attribute `write` sets (its text, and as a literal)
        and the value written (as a literal); None when the forward does not read the attribute
        or `__init__` gives it more than one value."""
        if not self._reads_attr(cls, write.name):
            return None
        initial = [v for c, v in self.project.attr_values(cls, write.name)]
        if len(initial) != 1:
            return None
        text = _text(initial[0].expr)
        return text, _literal(text), _literal(write.value)

    def _float_attribute_writes(self, name: CompiledName, writes: list[tuple[StateWrite, str, float, float]]
                                ) -> Prediction | None:
        """A float attribute written between calls, reported at its first write: once, then
        dynamic (later writes compile nothing); with dynamic=True nothing; with dynamic=False once
        per value (measured, torch 2.13: 0.5 -> 0.7 -> 0.9 recompiled 1 / 0 / 2 times)."""
        dynamic = _option(name.options, "dynamic")
        if dynamic is True:
            return None
        write, text, first, _ = writes[0]
        values = list(dict.fromkeys([first, *(new for _, _, _, new in writes)]))
        cause = f"`{write.subject}.{write.name} = {write.value}` changes a float attribute Dynamo specialised on " \
                f"({text} in `__init__`)"
        guard = f"self.{write.name} == {_guard_value(first)}"
        if dynamic is False:
            return Prediction("BL212", write.place, name.name, cause + ", and dynamic=False specialises on each value",
                              guard, _counted(len(values)), False, _DYNAMIC_FALSE_HELP)
        return Prediction("BL212", write.place, name.name, cause, guard, 1, True,
                          "keep it constant, or store it as a tensor (register_buffer)")

    def _module_write(self, name: CompiledName, cls: ClassInfo, write: StateWrite) -> Prediction | None:
        nested = "." in write.subject
        if write.action == "method" and not nested and write.name in _MODE_SWITCHES:
            to_eval = write.name == "eval" or write.value.strip() in ("False", "mode=False")
            # A module starts in training mode: `.train()` changes nothing unless an `.eval()`
            # (or `.train(False)`) on it came first.
            if not to_eval and not any(w.action == "method" and w.subject == write.subject and w.place.line < write.place.line
                                       and (w.name == "eval" or w.value.strip() in ("False", "mode=False"))
                                       for w in self.facts.writes):
                return None
            if not self._reads_training(cls):
                return None
            was = "True" if to_eval else "False"
            return Prediction("BL212", write.place, name.name, f"`.{write.name}()` flips the module's `training` flag",
                              f".training == {was}", 1, False,
                              "one extra compile per mode is expected; to avoid it, evaluate with the uncompiled "
                              "module or compile one callable per mode")
        if write.action == "method" and write.name in _DTYPE_SWITCHES and not nested:
            dtype = _CASTS.get(write.name) or _DTYPES.get(write.value.removeprefix("dtype=").strip(), "")
            if not dtype:
                return None
            return Prediction("BL212", write.place, name.name, f"`.{write.name}({write.value})` changes the parameters' dtype",
                              "dtype mismatch", 1, False, "cast the module before its first compiled call")
        if write.action == "method" and write.name == "requires_grad_":
            return Prediction("BL212", write.place, name.name,
                              f"`{write.subject}.requires_grad_({write.value})` changes a parameter's requires_grad",
                              "requires_grad mismatch", 1, False,
                              "freeze parameters before the first compiled call")
        if write.action == "attr" and not nested:
            return self._attribute_write(name, cls, write)
        return None

    def _attribute_write(self, name: CompiledName, cls: ClassInfo, write: StateWrite) -> Prediction | None:
        values = self._set_and_written(cls, write)
        if values is None:
            return None
        first, (ok_first, value_first), (ok_new, value_new) = values
        if ok_first and ok_new:
            if value_first == value_new or _kind(value_first) != _kind(value_new):
                return None
            kind = _kind(value_new)
            if kind in ("int", "bool", "str", "none"):  # (a float: _float_attribute_writes)
                return Prediction("BL212", write.place, name.name, f"`{write.subject}.{write.name} = {write.value}` changes a "
                                  f"{kind} attribute Dynamo guards on ({first} in `__init__`)",
                                  f"self.{write.name} == {_guard_value(value_first)}", 1, False,
                                  "keep it constant, or pass it as an argument of a separate compiled callable per value")
            return None
        old_class, new_class = _constructor(first), _constructor(write.value)
        if old_class and new_class:
            if self.resolve(old_class) == self.resolve(new_class) or old_class == new_class:
                return None  # the same type: the identity is not guarded (measured, torch 2.13)
            return Prediction("BL212", write.place, name.name,
                              f"`{write.subject}.{write.name} = {write.value}` replaces a submodule with another type "
                              f"(`{old_class}` in `__init__`)", f"___check_type_id(self._modules['{write.name}']",
                              1, False, "build the module with the submodule it will use, or compile after replacing it")
        return None

    def _reads_training(self, cls: ClassInfo) -> bool:
        """Whether its forward reads `self.training`, or it builds a submodule that does."""
        for klass in self._lineage(cls):
            forward = klass.methods.get("forward")
            if forward is not None and "training" in self.names_read(forward):
                return True
            for values in klass.attrs.values():
                if any(_TRAINING_MODULES.search(_text(v.expr)) for v in values):
                    return True
        return False

    def _reads_attr(self, cls: ClassInfo, attr: str) -> bool:
        for klass in self._lineage(cls):
            forward = klass.methods.get("forward")
            if forward is not None and attr in self.names_read(forward):
                return True
        return False

    def _lineage(self, cls: ClassInfo) -> list[ClassInfo]:
        seen = [cls]
        for base in cls.bases:
            found = self.project.resolve_class(base, cls.module)
            if found is not None and found not in seen:
                seen.append(found)
        return seen

    def _globals(self) -> list[Prediction]:
        """A global (or a global dict's entry) the compiled code reads, written between its calls:
        reported once per global, where the first such write happens (the writer's call, for a
        write in a helper), with the count over all values written."""
        writes = [w for w in self.facts.writes if w.action in ("global", "item")]
        if not writes:  # most files: the names the compiled code reads (a walk of each) are not needed
            return []
        read: set[str] = set()
        for fn in self.regions:
            read |= self.names_read(fn)
        calls = list(self.facts.calls)
        region_scopes = {fn.qualname for fn in self.regions}
        grouped: dict[tuple[str, str], list[tuple[StateWrite, Place]]] = {}
        for write in writes:
            if write.subject not in read:
                continue
            scope = self.module.defined[write.place.scope] if write.place.scope >= 0 else None
            if scope is not None and scope.qualname in region_scopes:
                continue  # written by the compiled code itself: BL201's case
            places = [write.place]
            if scope is not None and not _between_calls(write.place, calls):
                places = [w.place for w in self.facts.writes if w.action == "call" and w.subject == scope.qualname]
            place = next((p for p in places if _between_calls(p, calls)), None)
            if place is not None:
                grouped.setdefault((write.subject, write.name if write.action == "item" else ""), []).append((write, place))
        found = []
        for writes in grouped.values():
            prediction = self._global_writes(writes)
            if prediction is not None:
                found.append(prediction)
        return found

    def _global_writes(self, writes: list[tuple[StateWrite, Place]]) -> Prediction | None:
        write, place = writes[0]
        values = self.module.assigns.get(write.subject, [])
        if not values or values[0].iterated:
            return None
        initial = _text(values[0].expr)
        if write.action == "item":
            ok, table = _literal(initial)
            ok_key, key = _literal(write.name)
            if not (ok and ok_key and isinstance(table, dict) and key in table):
                return None
            first, subject = table[key], f"G['{write.subject}'][{key!r}]"
        else:
            ok, first = _literal(initial)
            if not ok:
                return None
            subject = f"G['{write.subject}']"
        seen = [first]
        for each, _ in writes:
            ok_new, new = _literal(each.value)
            if not ok_new or _kind(new) != _kind(first):
                return None
            if new not in seen:
                seen.append(new)
        kind = _kind(first)
        if len(seen) < 2 or kind not in ("int", "float", "bool", "str"):
            return None
        callee = next(c.callee for c in self.facts.calls if c.place.scope == place.scope)
        compiled = next((n for n in self._unique_names() if n.name == callee), None)
        dynamic = _option(compiled.options, "dynamic") if compiled is not None else None
        # A global float is dynamic after one change (from the start with dynamic=True, never
        # with dynamic=False); ints, bools and strings are specialised per value whatever
        # dynamic= says (measured on torch 2.13: a global int 2 -> 3 -> 4 recompiled twice).
        if kind == "float" and dynamic is True:
            return None
        dynamic_after = kind == "float" and dynamic is not False
        count = 1 if dynamic_after else _counted(len(seen))
        what = f"`{write.subject}[{write.name}] = {write.value}`" if write.action == "item" else \
            f"`{write.subject} = {write.value}`"
        return Prediction("BL213", place, callee,
                          f"{what} changes a global the compiled code read as {first!r}",
                          f"{subject} == {_guard_value(first)}", count, dynamic_after,
                          "keep the flag constant while the compiled code runs, or compile one callable per "
                          "setting (pass the setting as an argument)")


def _argument_prediction(callee: str, param: str, shown: str, seen: list[_Seen],
                         dynamic: object | None = None) -> Prediction | None:
    """What the values one parameter receives across the calls make Dynamo do. `dynamic`: the
    compile's `dynamic=` as written. An int or float is dynamic from the first call with True
    (no recompile) and specialised per value with False (measured, torch 2.13: ints 1, 2, 3
    recompile 0 / 1 / 2 times with dynamic=True / default / False); the rest is guarded alike."""
    first = seen[0]
    literal = [s for s in seen if s.known and s.values]
    if len(literal) == len(seen) and seen:
        values: list[object] = []
        for s in seen:
            for v in s.values:
                if v not in values or _kind(v) == "float":
                    if v not in values:
                        values.append(v)
        kinds = {_kind(v) for v in values}
        if len(values) < 2:
            return None
        where = next((s for s in seen if s.values and s.values != first.values[:len(s.values)] or len(s.values) > 1), seen[-1])
        shown_values = ", ".join(repr(v) for v in values[:4]) + (", ..." if len(values) > 4 else "")
        if kinds <= {"int"} or kinds <= {"float"} or kinds == {"int", "float"}:
            if dynamic is False:
                return Prediction("BL211", where.call.place, callee, f"`{shown}` is {shown_values} across calls, "
                                  "and dynamic=False specialises on each", f"{param} == {_guard_value(values[0])}",
                                  _counted(len(values)), False, _DYNAMIC_FALSE_HELP)
            count = _numeric_recompiles(values, dynamic is True)
            if count == 0:
                return None
            mixed = " (an int and a float: each type compiles a graph of its own)" if len(kinds) > 1 else ""
            return Prediction("BL211", where.call.place, callee, f"`{shown}` is {shown_values} across calls{mixed}",
                              f"{param} == {_guard_value(values[0])}", count, True,
                              "expected (one recompile, then the value is dynamic); pass it as a tensor or mark it "
                              "dynamic (torch.compile(dynamic=True)) to skip even that one")
        if kinds <= {"bool", "str", "none"} and len(kinds) == 1:
            count = _counted(len(values))
            guard = f"{param} is None" if kinds == {"none"} else f"{param} == {_guard_value(values[0])}"
            return Prediction("BL211", where.call.place, callee, f"`{shown}` is {shown_values} across calls",
                              guard, count, False,
                              "keep it constant, compile one callable per value, or pass a tensor instead")
        if kinds == {"tuple"}:
            lengths = {len(v) for v in values}  # type: ignore[arg-type]
            same_length = any(len([v for v in values if len(v) == n]) > 1 for n in lengths)  # type: ignore[arg-type]
            count = len(lengths) - 1 + (1 if same_length else 0)
            guard = f"len({param}) == {len(values[0])}" if len(lengths) > 1 else f"{param}["  # type: ignore[arg-type]
            return Prediction("BL211", where.call.place, callee, f"`{shown}` is {shown_values} across calls",
                              guard, min(count, RECOMPILE_LIMIT) if count < RECOMPILE_LIMIT else LIMIT, False,
                              "pass the sizes as a tensor's shape, or keep them constant")
        if "none" in kinds and len(kinds) == 2:
            return None  # None and a literal: a type change as well; not modelled
        return None
    # A list's length, a tensor's rank: guarded per distinct value.
    shapes = [s.values[0] for s in seen if s.kind in ("list", "rank", "dict") and s.values]
    if shapes and len(shapes) == len(seen) and len({kind for kind, _ in shapes}) == 1:  # type: ignore[misc]
        sizes = list(dict.fromkeys(n for _, n in shapes))  # type: ignore[misc]
        if len(sizes) >= 2:
            kind = shapes[0][0]  # type: ignore[index]
            where = next(s for s in seen[1:] if s.values[0][1] != sizes[0])  # type: ignore[index]
            if kind == "dict":
                # Dynamo guards a dict's length, then its keys in order (measured, torch 2.13).
                changed = where.values[0][1]  # type: ignore[index]
                guard = f"len({param}) != {len(sizes[0])}" if len(changed) != len(sizes[0]) else f"dict.keys({param})"
                shown_sizes = ", ".join("{" + ", ".join(map(repr, keys)) + "}" for keys in sizes)  # type: ignore[union-attr]
                return Prediction("BL211", where.call.place, callee, f"`{shown}` is a dict with keys {shown_sizes} across "
                                  "calls", guard, _counted(len(sizes)), False,
                                  "pass the same keys at every call (None-free placeholders for the missing ones), or "
                                  "compile one callable per key set")
            guard = f"len({param}) == {sizes[0]}" if kind == "list" else "rank mismatch"
            what = "a list of length" if kind == "list" else "a tensor of rank"
            return Prediction("BL211", where.call.place, callee,
                              f"`{shown}` is {what} {', '.join(map(str, sizes))} across calls", guard,
                              _counted(len(sizes)), False,
                              "keep the structure the same at every call (pad, or stack into one tensor)")
        return None
    # A Python number read from a tensor's data: it follows the data, so it changes between the
    # calls of a loop or of two call sites; an int or float then turns dynamic (one recompile),
    # a bool has two values (one recompile).
    computed = [s for s in seen if s.computed]
    if computed and (len(seen) > 1 or computed[0].call.loops):
        where = computed[0] if computed[0].call.loops else seen[1]
        kind = computed[0].computed
        if kind != "bool" and dynamic is not None:
            return None  # True: dynamic from the start; False: once per value the data takes, not known here
        return Prediction("BL211", where.call.place, callee,
                          f"`{shown}` is `{computed[0].base}`, a Python {'number' if kind == 'number' else kind} read "
                          "from a tensor's data, which changes between calls", f"{param} == ", 1, kind != "bool",
                          "pass the tensor itself (a 0-d tensor is not specialised), or mark the value dynamic "
                          "(torch.compile(dynamic=True)) to skip even the one recompile")
    # Strides: the same tensor passed as a transposed or strided view at one call and as itself
    # (or another view) at another: one compile per distinct layout (measured, torch 2.13).
    viewed = [s for s in seen if s.layout]
    if viewed and all(s.base == viewed[0].base and not s.known and not s.dtype for s in seen):
        layouts = list(dict.fromkeys(s.layout for s in seen))
        if len(layouts) >= 2:
            where = next(s for s in seen[1:] if s.layout != first.layout)
            shown_layouts = ", ".join(f"`{layout or first.base}`" for layout in layouts)
            return Prediction("BL211", where.call.place, callee,
                              f"`{shown}` is passed as {shown_layouts} across calls (its strides change)",
                              f"tensor '{param}'", _counted(len(layouts)), False,
                              "pass one layout every time (`.contiguous()` the views before the call), or "
                              "torch._dynamo.mark_dynamic the tensor")
        return None
    # None-ness: None at some calls, an expression (a tensor) at others.
    nones = [s for s in seen if s.known and s.values == (None,)]
    others = [s for s in seen if not s.known and not s.dtype and not s.unbounded]
    if nones and others and len(nones) + len(others) == len(seen):
        where = next(s for s in seen[1:] if (s in nones) != (first in nones))
        guard = f"{param} is None"
        left_out = any(all(text != "None" for _, text in s.call.args) for s in nones)  # None from the default
        none = "None (left out: its default)" if left_out else "None"
        return Prediction("BL211", where.call.place, callee, f"`{shown}` is {none} at some calls and `{others[0].base}` at others",
                          guard, 1, False, "pass a tensor every time (e.g. zeros), or compile one callable for each case")
    # dtype: a cast of the same tensor at one call, another dtype (or none) at another.
    casts = [s for s in seen if s.dtype]
    if casts and all(s.dtype or (not s.known and s.base == casts[0].base) for s in seen):
        distinct = list(dict.fromkeys(s.dtype or "unchanged" for s in seen))
        if len(distinct) >= 2:
            where = next(s for s in seen[1:] if (s.dtype or "unchanged") != (first.dtype or "unchanged"))
            return Prediction("BL211", where.call.place, callee,
                              f"`{shown}` is passed as {', '.join(distinct)} across calls (its dtype changes)",
                              "dtype mismatch", _counted(len(distinct)), False,
                              "cast once, before the compiled code, so every call sees one dtype")
    # A loop over a range of unknown length: an int that changes, then is dynamic.
    loops = [s for s in seen if s.unbounded]
    if loops and dynamic is True:
        return None
    if loops and dynamic is False:
        return Prediction("BL211", loops[0].call.place, callee, f"`{shown}` is the loop variable `{loops[0].base}` "
                          "(an int), and dynamic=False specialises on each value", f"{param} == ", LIMIT, False,
                          _DYNAMIC_FALSE_HELP)
    if loops:
        return Prediction("BL211", loops[0].call.place, callee, f"`{shown}` is the loop variable `{loops[0].base}` (an int)",
                          f"{param} == ", 1, True,
                          "expected (one recompile, then the value is dynamic); pass it as a tensor to skip even that one")
    return None


def _numeric_recompiles(values: list[object], dynamic: bool) -> int:
    """Recompiles for int and float values passed in this order (distinct), without dynamic=False:
    the first compile is specialised on its value (dynamic from the start with dynamic=True); a
    value no graph accepts compiles a dynamic graph for its type. Measured, torch 2.13 (default /
    dynamic=True): 1, 2, 3: 1 / 0; 1, 2, 0.5: 2 / 1; 1, 0.5, 2, 1.5: 2 / 1; 0.5, 1: 1 / 1."""
    graphs: list[tuple[str, object | None]] = [(_kind(values[0]), None if dynamic else values[0])]
    count = 0
    for value in values[1:]:
        if not any(kind == _kind(value) and (static is None or static == value) for kind, static in graphs):
            graphs.append((_kind(value), None))
            count += 1
    return count


_DYNAMIC_FALSE_HELP = ("drop dynamic=False (the value then recompiles once and turns dynamic), or pass it as a "
                       "tensor")


def _between_calls(place: Place, calls: list[CompiledCall]) -> bool:
    """Whether a write runs between two calls: a call in the same function before it and one
    after it, in source order (a write after a loop of calls, with none after it, changes nothing
    a call sees)."""
    same = [c for c in calls if c.place.scope == place.scope]
    return any(c.place.line < place.line for c in same) and any(c.place.line > place.line for c in same)


_CONTAINER_METHODS = frozenset({"append", "extend", "insert", "pop", "clear", "remove", "update", "setdefault",
                                "popitem"})


def _loop_length(loop: Loop) -> int | None:
    """How many times a for loop runs, when its iterable is a literal sequence or a literal range."""
    ok, values = _literal(loop.iter)
    if ok and isinstance(values, (list, tuple)):
        return len(values)
    match = re.fullmatch(r"range\((.*)\)", loop.iter)
    if match:
        ok, bounds = _literal(f"({match.group(1)},)")
        if ok and bounds and all(isinstance(b, int) for b in bounds):
            return len(range(*bounds))
    return None


_PARAMETER_LOOP = re.compile(r"""(\[\s*["']params["']\s*\]|\.(named_)?parameters\(\))\s*$""")


def _parameter_loop(call: CompiledCall) -> str | None:
    """The iterable of a loop around the call that runs over parameters (`group["params"]`,
    `model.parameters()`), innermost first."""
    return next((loop.iter for loop in reversed(call.loops) if _PARAMETER_LOOP.search(loop.iter)), None)


def _sized_by(text: str, var: str) -> bool:
    """`x[:, :t]`, `x[:t + 1]`, `torch.randn(1, t)`: an expression whose size follows `var`."""
    if not re.search(rf"\b{re.escape(var)}\b", text):
        return False
    return _sized_dim(text, var) is not None


def _is_compile(text: str, resolve: Callable[[str], str | None]) -> bool:
    """`torch.compile(...)` (any spelling the imports give it) as written."""
    match = re.match(r"([\w.]+)\(", text)
    return match is not None and (resolve(match.group(1)) or "").endswith("compile")


def _sized_dim(text: str, var: str) -> int | None:
    """Which dimension follows `var`: its place in a subscript's tuple or a factory's sizes."""
    try:
        tree = parse_expression(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # hostile text: no shape known
        return None

    def mentions(node: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id == var for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and mentions(node.slice):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for i, part in enumerate(parts):
                if isinstance(part, ast.Slice) and part.lower is not None and part.upper is not None \
                        and mentions(part.lower) and mentions(part.upper):
                    return None  # a window that moves (`start:start + 16`): its size is fixed
                if isinstance(part, ast.Slice) and mentions(part):
                    return i
            return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _FACTORIES:
            return next((i for i, arg in enumerate(node.args) if mentions(arg)), None)
    return None


def _size_guard(text: str, var: str) -> str:
    """The guard Dynamo names for a size that follows `var` (with the dimension, where known)."""
    dim = _sized_dim(text, var)
    return "size mismatch at index" + (f" {dim}" if dim is not None else "")


def _first_size(text: str, var: str, call: CompiledCall) -> int | None:
    """The size the argument has in the loop's first turn, when it is the loop variable itself
    (`x[:, :t]`, `torch.randn(1, t)`) over `range(b)` or `range(a, b)` with a literal start."""
    loop = next((loop for loop in reversed(call.loops) if loop.target == var), None)
    if loop is None:
        return None
    try:
        header = parse_expression(loop.iter)
        tree = parse_expression(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not (isinstance(header, ast.Call) and isinstance(header.func, ast.Name) and header.func.id == "range"
            and 1 <= len(header.args) <= 3 and not header.keywords):
        return None
    if len(header.args) == 3 and not (isinstance(header.args[2], ast.Constant) and header.args[2].value == 1):
        return None
    start = header.args[0] if len(header.args) > 1 else ast.Constant(0)
    if not (isinstance(start, ast.Constant) and type(start.value) is int):
        return None

    def is_var(node: ast.AST | None) -> bool:
        return isinstance(node, ast.Name) and node.id == var

    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if any(isinstance(part, ast.Slice) and is_var(part.upper) and part.step is None
                   and (part.lower is None or (isinstance(part.lower, ast.Constant) and part.lower.value == 0))
                   for part in parts):
                return start.value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _FACTORIES \
                and any(is_var(arg) for arg in node.args):
            return start.value
    return None


def _constructor(text: str) -> str:
    """`nn.Tanh()` -> `nn.Tanh`: the class a value constructs, or ""."""
    match = re.fullmatch(r"([A-Za-z_][\w.]*)\(.*\)", text, re.S)
    return match.group(1) if match and match.group(1).split(".")[-1][:1].isupper() else ""


def _option(options: str, keyword: str) -> object | None:
    """A keyword of the compile call as written (`torch.compile(f, dynamic=False)`), if literal."""
    match = re.search(rf"\b{keyword}\s*=\s*(True|False|None)\b", options)
    return {"True": True, "False": False, "None": None}[match.group(1)] if match else None


def dynamic_false(options: str) -> bool:
    return _option(options, "dynamic") is False


def _text(node: object) -> str:
    """An expression's source, without the parentheses a parsed fragment may carry."""
    if isinstance(node, cst.CSTNode):
        if getattr(node, "lpar", None):
            node = node.with_changes(lpar=[], rpar=[])  # type: ignore[attr-defined]
        return cst.Module(body=[]).code_for_node(node)
    return str(node)
