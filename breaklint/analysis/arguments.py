"""Values followed into called functions: what a function's parameters hold, from its callers.

A function that the compiled region reaches only through calls (Region.callers, regions.py)
runs with what those calls pass. Each parameter takes the join of the values that every call
site in the region passes it (positional, keyword, or the default when the call leaves it out):

- the same kind everywhere: that kind (a tensor is a boolean mask only if it is one everywhere);
- tensors or maybe-tensors everywhere: maybe-tensor;
- containers of tensors everywhere (a tuple display of tensors, an entry's `*args`): a container
  of the join of their elements;
- anything else (a tensor here, a Python int there; an unpacked `*args` that may bind it; a
  call site the analysis cannot place): nothing is learnt, the parameter is judged from the
  function's own body as before (values.py).

So a value is only ever as definite as the least definite call site: a tensor at one site and
a Python scalar at another never reaches `.item()`-style certainty.

Bounded work: one pass per function (the caller's own pass, shared with the rules, see
rule.FileContext), each caller evaluated once. Callers in the same file are themselves judged
with what their callers pass (transitively; a cycle stops at the function being computed:
unknown); callers in other files are judged from their own body, one level only, so that a
file's findings depend on its own regions, on its callers' files (their trees are read, and so
recorded by the engine as dependencies, engine.py) and on nothing further away.
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping, Sequence

import libcst as cst

from breaklint.analysis.binding import bind
from breaklint.index.project import FunctionInfo, ProjectIndex
from breaklint.analysis.regions import CallResolver
from breaklint.analysis.values import UNKNOWN, FunctionValues, Kind, Value, join, literal_value


def caller_functions(project: ProjectIndex, callers: Iterable[tuple[str, str, bool]]
                     ) -> list[tuple[FunctionInfo, bool]] | None:
    """The region's callers as functions, with whether each is an entry; None when one of them
    cannot be found (then no call site is known for sure). A caller in another file comes from
    that file's tree, read for its content only: the result depends on its bytes, and the
    reading file is not checked again against that tree (nothing here is matched by identity
    with the reading file's nodes; see view.ShallowFile.content)."""
    found: list[tuple[FunctionInfo, bool]] = []
    for module_name, qualname, entry in callers:
        modules = [m.content_module for m in project.by_name.get(module_name, [])]
        matches = [m.functions[qualname] for m in modules if qualname in m.functions]
        if len(matches) != 1:
            return None
        found.append((matches[0], entry))
    return found


def passed_values(fn: FunctionInfo, callers: list[FunctionInfo], resolver: CallResolver,
                  values_of: Callable[[FunctionInfo], FunctionValues | None]) -> dict[str, Value]:
    """parameter name -> the join of what every call site in `callers` passes it, for the
    parameters where that join says something (see the module docstring)."""
    params = _parameters(fn.node)
    seen: dict[str, list[Value]] = {name: [] for name in params}
    for caller in callers:
        values = values_of(caller)
        if values is None:
            return {}
        sites = 0
        for call in caller.calls:
            for target, implicit in resolver.bound_targets(call, caller):
                if implicit is None or not same_def(target, fn):
                    continue
                sites += 1
                bound = bind(call, fn.header, implicit)
                skipped = set(fn.header.positional[:implicit])
                unpacked = _unpacked(call, fn.header.positional[implicit:], params, values, caller) if bound.unpacked else {}
                for name, param in params.items():
                    if name in skipped:
                        seen[name].append(UNKNOWN)
                    elif name in bound.args:
                        seen[name].append(_passed(bound.args[name], values, caller))
                    elif name in unpacked:
                        seen[name].append(unpacked[name])
                    elif bound.unpacked or param.default is None:
                        seen[name].append(UNKNOWN)
                    else:
                        seen[name].append(literal_value(param.default))
        if not sites:
            return {}  # it reaches fn in a way this pass cannot see (through a parameter)
    joined = {name: join(found) for name, found in seen.items() if found}
    return {name: value for name, value in joined.items() if value.kind is not Kind.UNKNOWN or value.element is not None}


def _unpacked(call: cst.Call, positional: Sequence[str], params: Mapping[str, cst.Param],
              values: FunctionValues, caller: FunctionInfo) -> dict[str, Value]:
    """What `*seq` and `**mapping` at the call bind, where their parts are known: each element
    of a tuple or list display or of the tuple a call returns (`f(*g(x))`), each string key of
    a dict display or of the dict a call returns (`f(**h(x))`). A parameter such an argument
    may or may not bind is left out (unknown)."""
    found: dict[str, Value] = {}
    index: int | None = 0  # the next positional parameter, while the positions are known
    for arg in call.args:
        if arg.star == "**":
            for name, value in (_items(arg.value, values, caller) or {}).items():
                if name in params:
                    found.setdefault(name, value)
        elif arg.keyword is None and index is not None:
            elements = _elements(arg.value, values, caller) if arg.star == "*" else (UNKNOWN,)
            if elements is None:
                index = None  # where the rest land is unknown
                continue
            for value in elements:
                if arg.star == "*" and index < len(positional):
                    found.setdefault(positional[index], value)
                index += 1
    return found


def _elements(expr: cst.BaseExpression, values: FunctionValues, caller: FunctionInfo) -> tuple[Value, ...] | None:
    if isinstance(expr, (cst.Tuple, cst.List)):
        if any(isinstance(e, cst.StarredElement) for e in expr.elements):
            return None
        return tuple(_passed(e.value, values, caller) for e in expr.elements)
    return values.returned_elements(expr)


def _items(expr: cst.BaseExpression, values: FunctionValues, caller: FunctionInfo) -> dict[str, Value] | None:
    if not isinstance(expr, cst.Dict):
        return values.returned_items(expr)
    found: dict[str, Value] = {}
    for element in expr.elements:
        key = element.key.evaluated_value if isinstance(element, cst.DictElement) \
            and isinstance(element.key, cst.SimpleString) else None
        if not isinstance(key, str):
            return None
        found[key] = _passed(element.value, values, caller)  # type: ignore[union-attr]
    return found


def reads_arguments(fn: FunctionInfo) -> bool:
    """Whether fn's value pass reads what its callers pass: a parameter of fn's own (not `self`,
    not `*args`) is unannotated. An annotation says what it holds, whatever is passed
    (values.FunctionValues._param_value)."""
    return any(param.annotation is None for name, param in _parameters(fn.node).items() if name != fn.self_name)


def entry_callers(fn: FunctionInfo, resolver: CallResolver) -> list[FunctionInfo]:
    """The functions of fn's own file that call it (a compiled entry point: its calls are made
    outside the region, by the script or test around it). Calls in other files are not seen, so
    what they pass is only ever joined with, never relied on alone (see passed_values)."""
    module = fn.module.content_module
    name = fn.header.name
    # `_names` first, a cheap test: resolving a call may read other files.
    return [caller for caller in module.defined if caller is not fn and any(
        target is fn for call in caller.calls if _names(call.func, name)
        for target, _ in resolver.bound_targets(call, caller))]


def submodule_callers(fn: FunctionInfo, resolver: CallResolver) -> list[FunctionInfo]:
    """The methods of fn's own file that call the module whose `forward` fn is through an
    attribute their class builds it in (`self.rel_pos = AlibiPositionalBias(h)`, then
    `self.rel_pos(i, j)`): an assumed entry that its file uses as a submodule. Read by name
    (which classes may build one, then those classes and their methods), so that a reader in
    another file depends on those definitions, not on the rest of the file."""
    cls = fn.class_info
    if cls is None:
        return []
    name = cls.qualname.rpartition(".")[2]
    module = fn.module.content_module
    users: list[FunctionInfo] = []
    for qualname in module.classes_building(name):
        owner = module.classes[qualname]
        built = {attr for attr, bound in owner.attrs.items()
                 if any(isinstance(value, cst.Call) and _names(value.func, name)
                        for assigned in bound for value in _either(assigned.expr))}
        if not built:
            continue
        for method_name in list(owner.methods):
            caller = module.functions.get(f"{qualname}.{method_name}")
            if caller is None or same_def(caller, fn) or caller.self_name is None:
                continue
            if any(isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name)
                   and call.func.value.value == caller.self_name and call.func.attr.value in built
                   and any(same_def(target, fn) for target, _ in resolver.bound_targets(call, caller))
                   for call in caller.calls):
                users.append(caller)
    return users


def same_def(one: FunctionInfo, other: FunctionInfo) -> bool:
    """The same def, though perhaps read through two views of its file (the index's, and a
    content view's for a caller in another file: view.ShallowFile.content_module)."""
    return one is other or (one.ordinal == other.ordinal and one.qualname == other.qualname
                            and one.module.file.path == other.module.file.path)


def _either(expr: cst.BaseExpression) -> tuple[cst.BaseExpression, ...]:
    """What an attribute may be bound to: both arms of `Bias(config) if config.use_bias else None`."""
    return (expr.body, expr.orelse) if isinstance(expr, cst.IfExp) else (expr,)


def _names(func: cst.BaseExpression, name: str) -> bool:
    """`name(...)` or `x.name(...)`."""
    return (isinstance(func, cst.Name) and func.value == name) or (
        isinstance(func, cst.Attribute) and func.attr.value == name)


def _passed(arg: cst.BaseExpression, values: FunctionValues, caller: FunctionInfo) -> Value:
    """What the caller passes: its value of `arg`, except a parameter that is a maybe-tensor only
    by the caller's own guess (values.FunctionValues.guessed), passed on as it is: unknown."""
    if isinstance(arg, cst.Name) and arg.value in values.guessed and not _rebinds(caller, arg.value):
        return UNKNOWN
    return values.of(arg)


def _rebinds(fn: FunctionInfo | None, name: str) -> bool:
    """Whether fn (or a function it is nested in) assigns `name` (then it may hold something else)."""
    while fn is not None:
        if name in fn.assigns:
            return True
        fn = fn.parent
    return False


def _parameters(node: cst.FunctionDef) -> Mapping[str, cst.Param]:
    """The named parameters (`*args` and `**kwargs` stay unknown)."""
    params = node.params
    return {p.name.value: p for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
