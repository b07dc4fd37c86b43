"""A small abstract interpretation: is this expression a tensor, a shape, a Python value?

A branch only breaks the graph when it tests a tensor, so rules ask here before they report.
One forward pass per function in source order; the last binding seen wins (good enough for
the straight-line code that forward methods are made of). Unknown never becomes a tensor; a
helper's parameters hold what its callers pass (breaklint/analysis/arguments.py), and a call of a
project function gives what its returns give (breaklint/analysis/returns.py).
"""

from __future__ import annotations

import enum
from functools import lru_cache
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Collection, Mapping

import libcst as cst

from breaklint.index.imports import dotted
from breaklint.analysis.numpy_api import CONSTANT_CALLS, ELEMENTWISE, is_scalar_draw, numpy_name
from breaklint.index.project import Assigned, ClassInfo, FunctionInfo, ProjectIndex
from breaklint.analysis.torch_api import RETURNS_BOOL, RETURNS_INT, RETURNS_TENSOR
from breaklint.infra.walk import content_children, content_nodes

if TYPE_CHECKING:
    from breaklint.analysis.numpy_flow import NumpyFlow
    from breaklint.analysis.returns import ReturnFlow


class Kind(enum.Enum):
    TENSOR = "tensor"  # known to be a tensor: a torch call, a parameter, tensor arithmetic
    MAYBE_TENSOR = "maybe-tensor"  # an unannotated argument, a module's output
    SHAPE_INT = "shape-int"  # x.shape[0], x.size(1), x.dim(), len(x): guarded, never a break
    SHAPE = "shape"  # x.shape, x.size()
    PYTHON = "python"  # literals, config constants, self.training, isinstance(...)
    MODULE = "module"  # an nn.Module instance
    RNG = "rng"  # a `random.Random` instance: Dynamo models it (RNG_DRAWS)
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Value:
    kind: Kind
    boolean: bool = False  # a tensor known to hold booleans (a mask)
    # A NumPy array or scalar: in a region Dynamo traces it as a tensor (torch._numpy), so the
    # Python code that needs its value (a branch, `range()`, `int()`) breaks as on a tensor.
    numpy: bool = False
    # A NumPy value computed from Python numbers by element-wise functions (`np.lcm(a, b)`,
    # `np.sqrt(d)`): its fake tensor knows the value, so Dynamo reads a float back and takes it
    # as a size without a break (numpy_api.ELEMENTWISE). Branches and `range()` still break.
    from_scalars: bool = False
    # A list, tuple or dict annotated to hold these (`List[Dict[str, Tensor]]`, `Dict[str,
    # Tensor]`): what an item, an element or an iteration of it gives. None: nothing known.
    element: "Value | None" = None
    # Annotated as a tensor or a container (`Tensor | tuple[Tensor]`): what `isinstance` gives is
    # not known (type_tests.py), though the value is read as a tensor elsewhere.
    or_container: bool = False

    @property
    def is_tensor(self) -> bool:
        return self.kind is Kind.TENSOR

    @property
    def tensorish(self) -> bool:
        return self.kind in (Kind.TENSOR, Kind.MAYBE_TENSOR)


TENSOR = Value(Kind.TENSOR)
MAYBE = Value(Kind.MAYBE_TENSOR)
SHAPE_INT = Value(Kind.SHAPE_INT)
SHAPE = Value(Kind.SHAPE)
PYTHON = Value(Kind.PYTHON)
MODULE = Value(Kind.MODULE)
RNG = Value(Kind.RNG)
UNKNOWN = Value(Kind.UNKNOWN)
NUMPY = Value(Kind.TENSOR, numpy=True)
# The names a model's configuration goes by (transformers' `config`, timm's and mmcv's `cfg`):
# what it holds are Python values (sizes, flags), read as such where a module stores or tests them.
CONFIG_NAMES = frozenset({"config", "cfg"})
# A container known to hold Python values only (`tuple[int, int]`, `(h // p, w // p)` of Python
# ints): its items are Python values. (PYTHON alone says the object is no tensor; `list(xs)` is
# one, and its items may be tensors.)
PYTHON_ITEMS = Value(Kind.PYTHON, element=PYTHON)

TENSOR_PY_ATTRS = frozenset(
    {"dtype", "device", "is_cuda", "requires_grad", "layout", "is_sparse", "is_leaf",
     "is_quantized", "is_meta", "is_mps", "is_cpu", "names", "is_nested"}
)
TENSOR_SELF_ATTRS = frozenset({"T", "mT", "H", "mH", "data", "grad", "real", "imag"})
TENSOR_INT_METHODS = frozenset({"dim", "ndimension", "numel", "nelement", "element_size", "get_device"})
TENSOR_PY_METHODS = frozenset(
    {"is_contiguous", "is_floating_point", "is_complex", "data_ptr", "is_pinned", "is_shared",
     "is_signed", "has_names", "is_set_to", "is_inference", "item", "tolist",
     "untyped_storage", "storage_offset", "__len__"}
)
TENSOR_BOOL_METHODS = frozenset(
    {"eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite", "isneginf", "isposinf",
     "logical_and", "logical_or", "logical_not", "logical_xor", "bool", "isclose", "signbit",
     "any", "all", "isreal", "greater", "less", "greater_equal", "less_equal", "not_equal"}
)
BOOL_PRESERVING_METHODS = frozenset(
    {"view", "reshape", "flatten", "squeeze", "unsqueeze", "t", "transpose", "permute",
     "contiguous", "clone", "detach", "expand", "expand_as", "repeat", "cpu", "cuda", "to",
     "view_as", "reshape_as", "flip", "roll", "__getitem__"}
)
# torch.<sub>.<fn> that are ATen ops named `<sub>_<fn>` (torch.linalg.norm -> aten::linalg_norm).
ATEN_PREFIXED_NAMESPACES = frozenset({"linalg", "fft", "special", "nested"})
SHAPE_INT_OPS = frozenset({"dim", "numel", "sym_numel", "element_size", "storage_offset", "dense_dim", "sparse_dim"})
TORCH_BOOL_FUNCS = frozenset(
    {"isnan", "isinf", "isfinite", "isneginf", "isposinf", "eq", "ne", "gt", "ge", "lt", "le",
     "logical_and", "logical_or", "logical_not", "logical_xor", "any", "all", "isin", "isclose",
     "signbit", "greater", "less", "greater_equal", "less_equal", "not_equal", "isreal"}
)
PY_RESULT_BUILTINS = frozenset(
    {"isinstance", "issubclass", "hasattr", "callable", "type", "id", "str", "repr", "range",
     "enumerate", "zip", "print", "sorted", "reversed", "list", "tuple", "dict", "set", "frozenset",
     "getattr", "format", "hash", "chr", "ord"}
)
NUMERIC_BUILTINS = frozenset({"min", "max", "abs", "sum", "round", "pow", "divmod"})
# Builtins whose result holds its argument's elements.
CONTAINER_BUILTINS = frozenset({"list", "tuple", "sorted", "reversed", "set", "frozenset"})
SCALAR_CASTS = frozenset({"int", "float", "bool", "complex"})
# Expressions nested deeper than this (generated or hostile code) are UNKNOWN: each level costs
# a few Python frames, and the interpreter's recursion limit must not be what stops us.
MAX_EXPRESSION_DEPTH = 100


def combine(*values: Value) -> Value:
    """The value of an operator applied to operands of these values."""
    kinds = {v.kind for v in values}
    tensors = [v for v in values if v.tensorish]
    boolean = all(v.boolean for v in tensors)
    # NumPy with Python numbers stays NumPy; with a tensor it is a tensor.
    numpy = bool(tensors) and all(v.numpy for v in tensors)
    from_scalars = numpy and all(v.from_scalars for v in tensors)
    if Kind.TENSOR in kinds:
        return Value(Kind.TENSOR, boolean, numpy, from_scalars)
    if Kind.MAYBE_TENSOR in kinds:
        return Value(Kind.MAYBE_TENSOR, boolean, numpy, from_scalars)
    if kinds <= {Kind.SHAPE_INT, Kind.PYTHON} and Kind.SHAPE_INT in kinds:
        return SHAPE_INT
    if kinds <= {Kind.SHAPE, Kind.PYTHON} and Kind.SHAPE in kinds:
        return SHAPE
    if kinds == {Kind.PYTHON}:
        return PYTHON
    return UNKNOWN


def join(values: list[Value]) -> Value:
    """What a parameter holds when call sites pass it these values (breaklint/analysis/arguments.py):
    one kind everywhere, or tensor-ish everywhere (maybe-tensor); else unknown."""
    kinds = {v.kind for v in values}
    # Flags hold when every site agrees (a mask everywhere, NumPy everywhere).
    flags = {"boolean": all(v.boolean for v in values), "numpy": all(v.numpy for v in values),
             "from_scalars": all(v.from_scalars for v in values)}
    if len(kinds) == 1:
        kind = kinds.pop()
        if kind is Kind.UNKNOWN and all(v.element is not None for v in values):
            element = join([v.element for v in values if v.element is not None])  # containers of tensors
            return Value(kind, element=element) if element.tensorish or element.element is not None else UNKNOWN
        if kind is Kind.PYTHON and all(v == PYTHON_ITEMS for v in values):
            return PYTHON_ITEMS
        return Value(kind, **flags) if kind in (Kind.TENSOR, Kind.MAYBE_TENSOR) else Value(kind)
    if kinds <= {Kind.TENSOR, Kind.MAYBE_TENSOR}:
        return Value(Kind.MAYBE_TENSOR, **flags)
    return UNKNOWN


def literal_value(expr: cst.BaseExpression) -> Value:
    """A parameter's default as a value: a literal (None included) is a Python value."""
    return PYTHON if _is_literal(expr) else UNKNOWN


def _holding(element: Value) -> Value:
    """A list, tuple or set of elements of this value: a container of tensors (or of containers
    of them) is known as an annotated one is (`Value.element`); of anything else, unknown."""
    if element.kind is Kind.PYTHON:
        return PYTHON_ITEMS  # of Python values (`list[int]`, `[int(v) for v in sizes]`)
    return Value(Kind.UNKNOWN, element=element) if element.is_tensor or element.element is not None else UNKNOWN


def _as_bool(value: Value) -> Value:
    return replace(value, boolean=True) if value.tensorish else value


def _array_of(value: Value) -> Value:
    """The same kind of value with its flags, as an element or a method result is."""
    return Value(value.kind, value.boolean, value.numpy) if value.tensorish else value


class FunctionValues:
    """Values of every expression in one function (and the functions nested in it)."""

    def __init__(self, fn: FunctionInfo, project: ProjectIndex, entry: bool = False,
                 arguments: Mapping[str, Value] | None = None, flow: NumpyFlow | None = None,
                 returns: ReturnFlow | None = None, only: frozenset[cst.CSTNode] | None = None) -> None:
        self.fn = fn
        # The statements to run, when a pass is asked for a few values only (a callee's returns,
        # returns._statements_read); None: every statement.
        self._only = only
        # NumPy values across calls within this file (breaklint/analysis/numpy_flow.py), when it uses NumPy.
        self.flow = flow
        # What calls of the tree's functions return (breaklint/analysis/returns.py).
        self.returns = returns
        # The arguments of an entry point are what torch.compile is called with: tensors, most
        # likely. A helper's arguments are what its callers in the region pass (`arguments`,
        # from breaklint/analysis/arguments.py), else they only count as tensors with evidence in its body.
        self.entry = entry
        self.arguments = arguments or {}
        # fn's parameters that are maybe-tensors only by that evidence (a guess: a name passed
        # to a torch call may be a shape int): not passed on to callees as they are.
        self.guessed: set[str] = set()
        self.project = project
        self.results: dict[cst.CSTNode, Value] = {}
        self._owner: ClassInfo | None = None
        self._self_names: set[str] = set()
        self._depth = 0  # of nested _eval calls
        self._scope = fn  # the function (or nested def) whose code is being evaluated
        # Calls whose callee returns a tuple display on every path: the value of each element.
        self._elements: dict[cst.Call, tuple[Value, ...]] = {}
        # Calls whose callee returns a dict display of the same string keys on every path.
        self._items: dict[cst.Call, dict[str, Value]] = {}
        # What `self.<attr>` of a class holds, judged once for every function of the pass that
        # reads it (a module's forward and its helpers read the same attributes). A check's
        # project is a view made for one pass over one file (engine.py), so what the answer
        # read is recorded for that file.
        self._attributes: dict[tuple[ClassInfo, str], Value] = project.derived("self attributes", dict)
        self._run_function(fn.node, {}, fn)

    def of(self, node: cst.BaseExpression) -> Value:
        return self.results.get(node, UNKNOWN)

    def returned_elements(self, node: cst.BaseExpression) -> tuple[Value, ...] | None:
        """What each element of the tuple a call returns is (`f(*g(x))`); None when not known."""
        return self._elements.get(node) if isinstance(node, cst.Call) else None

    def returned_items(self, node: cst.BaseExpression) -> dict[str, Value] | None:
        """What each string key of the dict a call returns holds (`f(**h(x))`); None when not known."""
        return self._items.get(node) if isinstance(node, cst.Call) else None

    # --- statements -------------------------------------------------------------------------
    def _run_function(self, node: cst.FunctionDef | cst.Lambda, outer: Mapping[str, Value],
                      info: FunctionInfo | None) -> None:
        env = dict(outer)
        self_param = info.self_name if info is not None else None
        if info is not None and info.class_info is not None and self_param:
            self._owner = info.class_info
            self._self_names.add(self_param)
            env[self_param] = MODULE if self.project.is_nn_module(info.class_info) else UNKNOWN
        params = node.params
        passed = self.flow.params(info) if self.flow is not None and info is self.fn else {}
        for param in [*params.posonly_params, *params.params, *params.kwonly_params]:
            if param.name.value != self_param:
                env[param.name.value] = passed.get(param.name.value) or self._param_value(param, node, info is self.fn)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                env[star.name.value] = UNKNOWN
        if isinstance(params.star_arg, cst.Param) and info is self.fn and self.entry and params.star_arg.annotation is None:
            # `forward(self, *args)` of an entry point: the inputs, each a probable tensor as a
            # named one is (kornia's augmentation containers hand them on).
            env[params.star_arg.name.value] = Value(Kind.UNKNOWN, element=MAYBE)
        for param in [*params.posonly_params, *params.params, *params.kwonly_params]:
            if param.default is not None:
                self._eval(param.default, dict(outer))
        scope = self._scope
        self._scope = info or scope
        try:
            if isinstance(node, cst.Lambda):
                self._eval(node.body, env)
            else:
                self._run_block(node.body, env)
        finally:
            self._scope = scope

    def _param_value(self, param: cst.Param, owner: cst.FunctionDef | cst.Lambda, outermost: bool) -> Value:
        if param.annotation is not None:
            return _annotation_value(param.annotation.annotation)
        commented = self._type_comment(owner).get(param.name.value) if isinstance(owner, cst.FunctionDef) else None
        if commented is not None:
            return _annotation_value(commented)
        if outermost and param.name.value in self.arguments:
            return self.arguments[param.name.value]
        default = param.default
        if default is not None and not (isinstance(default, cst.Name) and default.value == "None"):
            return PYTHON if _is_literal(default) else UNKNOWN
        if outermost and self.entry and default is None:
            return MAYBE
        if param.name.value in self._evidence(owner):
            if outermost:
                self.guessed.add(param.name.value)
            return MAYBE
        return UNKNOWN

    def _type_comment(self, owner: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
        """The parameters' types a PEP 484 type comment gives (`# type: (Tensor, int) -> Tensor`
        under the `def` line, as TorchScript-era code writes them), by name; once per def."""
        found: dict[cst.CSTNode, dict[str, cst.BaseExpression]] = self.fn.derived("type comments", dict)
        if owner not in found:
            found[owner] = _commented_types(owner)
        return found[owner]

    def _evidence(self, owner: cst.FunctionDef | cst.Lambda) -> set[str]:
        resolve = self.fn.module.imports.resolve  # read at each pass: it records what the pass read
        # From the code and its module's imports alone: a function judged by several passes (its
        # own, a caller's callee pass, another file's) is searched once.
        found: dict[cst.CSTNode, set[str]] = self.fn.derived("used as tensor", dict)
        if owner not in found:
            found[owner] = used_as_tensor(owner, resolve)
        return found[owner]

    def _run_block(self, body: cst.BaseSuite | cst.CSTNode, env: dict[str, Value]) -> None:
        if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)):
            statements = body.body if self._only is None else [s for s in body.body if s in self._only]
        else:
            statements = [body]
        for statement in statements:
            self._run_statement(statement, env)

    def _run_statement(self, stmt: cst.CSTNode, env: dict[str, Value]) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._run_small(small, env)
        elif isinstance(stmt, cst.FunctionDef):
            for deco in stmt.decorators:
                self._eval(deco.decorator, env)
            env[stmt.name.value] = PYTHON
            nested = self._nested_info(stmt)
            self._run_function(stmt, env, nested)
        elif isinstance(stmt, cst.ClassDef):
            env[stmt.name.value] = UNKNOWN
        elif isinstance(stmt, cst.If):
            self._eval(stmt.test, env)
            self._run_block(stmt.body, env)
            if stmt.orelse is not None:
                self._run_statement(stmt.orelse, env)
        elif isinstance(stmt, cst.Else):
            self._run_block(stmt.body, env)
        elif isinstance(stmt, cst.While):
            self._eval(stmt.test, env)
            self._run_block(stmt.body, env)
            if stmt.orelse is not None:
                self._run_block(stmt.orelse.body, env)
        elif isinstance(stmt, cst.For):
            self._bind(stmt.target, self._eval(stmt.iter, env), env, iterated=True, source=stmt.iter)
            self._run_block(stmt.body, env)
            if stmt.orelse is not None:
                self._run_block(stmt.orelse.body, env)
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                self._eval(item.item, env)
                if item.asname is not None:
                    self._bind(item.asname.name, UNKNOWN, env)
            self._run_block(stmt.body, env)
        elif isinstance(stmt, cst.Try):
            self._run_block(stmt.body, env)
            for handler in stmt.handlers:
                if handler.type is not None:
                    self._eval(handler.type, env)
                if handler.name is not None:
                    self._bind(handler.name.name, UNKNOWN, env)
                self._run_block(handler.body, env)
            for extra in (stmt.orelse, stmt.finalbody):
                if extra is not None:
                    self._run_block(extra.body, env)
        elif isinstance(stmt, cst.Match):
            self._eval(stmt.subject, env)
            for case in stmt.cases:
                if case.guard is not None:
                    self._eval(case.guard, env)
                self._run_block(case.body, env)
        else:  # TryStar and future compound statements: evaluate what we can see
            for child in content_children(stmt):
                if isinstance(child, cst.BaseExpression):
                    self._eval(child, env)
                elif isinstance(child, (cst.BaseSuite, cst.BaseStatement)):
                    self._run_block(child, env)

    def _nested_info(self, node: cst.FunctionDef) -> FunctionInfo | None:
        for nested in _all_nested(self.fn):
            if nested.node is node:
                return nested
        return None

    def _run_small(self, small: cst.BaseSmallStatement, env: dict[str, Value]) -> None:
        if isinstance(small, cst.Assign):
            value = self._eval(small.value, env)
            for target in small.targets:
                self._bind(target.target, value, env, source=small.value)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                value = self._eval(small.value, env)
                if isinstance(small.value, (cst.List, cst.Dict, cst.Tuple)) and not small.value.elements:
                    # `maps: list[Tensor] = []`: what it will hold is the annotation's to say
                    annotated = _annotation_value(small.annotation.annotation)
                    value = annotated if annotated.kind is not Kind.UNKNOWN or annotated.element is not None else value
                self._bind(small.target, value, env, source=small.value)
        elif isinstance(small, cst.AugAssign):
            value = self._eval(small.value, env)
            current = self._eval(small.target, env)
            self._bind(small.target, combine(current, value), env)
        elif isinstance(small, (cst.Expr, cst.Return, cst.Assert, cst.Raise, cst.Del)):
            for child in content_children(small):
                if isinstance(child, cst.BaseExpression):
                    self._eval(child, env)
            if isinstance(small, cst.Assert) and small.msg is not None:
                self._eval(small.msg, env)
        elif isinstance(small, (cst.Global, cst.Nonlocal)):
            for item in small.names:
                env.setdefault(item.name.value, UNKNOWN)

    def _bind(self, target: cst.BaseExpression, value: Value, env: dict[str, Value],
              iterated: bool = False, source: cst.BaseExpression | None = None) -> None:
        if iterated:
            value = self._element_of(value, source, env)
        if isinstance(target, cst.Name):
            env[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = [e.value for e in target.elements]
            sources = self._parallel_elements(source, len(elements)) if iterated else None
            literal = source.elements if isinstance(source, (cst.Tuple, cst.List)) and not iterated else None
            returned = self._elements.get(source) if isinstance(source, cst.Call) and not iterated else None
            starred = any(isinstance(e, cst.StarredElement) for e in elements)
            for i, element in enumerate(elements):
                inner = element.value if isinstance(element, cst.StarredElement) else element
                if sources is not None:
                    self._bind(inner, sources[i], env)
                elif literal is not None and len(literal) == len(elements):
                    self._bind(inner, self.of(literal[i].value), env)
                elif returned is not None and len(returned) == len(elements) and not starred:
                    self._bind(inner, returned[i], env)  # `a, b = helper(x)`: its return's elements
                else:
                    self._bind(inner, self._element_of(value, None, env), env)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, UNKNOWN, env)
        elif isinstance(target, (cst.Attribute, cst.Subscript)):
            self._eval(target, env)

    def _parallel_elements(self, source: cst.BaseExpression | None, count: int) -> list[Value] | None:
        """Per-target values for `for i, x in enumerate(xs)` and `for a, b in zip(xs, ys)`."""
        if not isinstance(source, cst.Call):
            return None
        name = dotted(source.func)
        args = [a.value for a in source.args]
        if name == "enumerate" and args and count == 2:
            return [PYTHON, self._element_of(self.of(args[0]), args[0], {})]
        if name == "zip" and len(args) == count:
            return [self._element_of(self.of(a), a, {}) for a in args]
        return None

    def _element_of(self, container: Value, source: cst.BaseExpression | None, env: dict[str, Value]) -> Value:
        """The value of one element when iterating or unpacking something of this value."""
        if container.tensorish:
            return Value(container.kind, numpy=container.numpy)
        if container.element is not None:
            return container.element
        if container.kind is Kind.SHAPE:
            return SHAPE_INT
        if isinstance(source, cst.Call) and dotted(source.func) == "range":
            args = [self.of(a.value) for a in source.args]
            return SHAPE_INT if any(a.kind is Kind.SHAPE_INT for a in args) else PYTHON
        return UNKNOWN

    # --- expressions --------------------------------------------------------------------------
    def _eval(self, node: cst.BaseExpression, env: dict[str, Value]) -> Value:
        if self._depth >= MAX_EXPRESSION_DEPTH:
            return UNKNOWN  # deeper than any real code: unknown, and the stack stays bounded
        self._depth += 1
        try:
            value = self._compute(node, env)
        finally:
            self._depth -= 1
        self.results[node] = value
        return value

    def _compute(self, node: cst.BaseExpression, env: dict[str, Value]) -> Value:
        compute = _compute_table().get(node.__class__)  # by class: a chain of isinstance tests cost more than the rest
        if compute is not None:
            return compute(self, node, env)  # type: ignore[operator]
        self._eval_children(node, env)
        return UNKNOWN

    def _literal(self, node: cst.BaseExpression, env: dict[str, Value]) -> Value:
        return PYTHON

    def _formatted(self, node: cst.FormattedString, env: dict[str, Value]) -> Value:
        self._eval_children(node, env)
        return PYTHON

    def _named(self, node: cst.Name, env: dict[str, Value]) -> Value:
        return self._name(node.value, env)

    def _binary(self, node: cst.BinaryOperation, env: dict[str, Value]) -> Value:
        left, right = self._eval(node.left, env), self._eval(node.right, env)
        result = combine(left, right)
        if isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)) and left.boolean and right.boolean:
            return _as_bool(result)
        return replace(result, boolean=False) if result.tensorish else result

    def _unary(self, node: cst.UnaryOperation, env: dict[str, Value]) -> Value:
        operand = self._eval(node.expression, env)
        if isinstance(node.operator, cst.Not):
            return _as_bool(operand) if operand.tensorish else (operand if operand.kind is Kind.SHAPE_INT else PYTHON)
        return operand

    def _boolean(self, node: cst.BooleanOperation, env: dict[str, Value]) -> Value:
        return combine(self._eval(node.left, env), self._eval(node.right, env))

    def _comparison(self, node: cst.Comparison, env: dict[str, Value]) -> Value:
        values = [self._eval(node.left, env)]
        values += [self._eval(target.comparator, env) for target in node.comparisons]
        if any(isinstance(t.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for t in node.comparisons):
            return PYTHON
        result = combine(*values)
        if result.kind is Kind.SHAPE:
            return SHAPE_INT
        return _as_bool(result)

    def _conditional(self, node: cst.IfExp, env: dict[str, Value]) -> Value:
        self._eval(node.test, env)
        return combine(self._eval(node.body, env), self._eval(node.orelse, env))

    def _walrus(self, node: cst.NamedExpr, env: dict[str, Value]) -> Value:
        value = self._eval(node.value, env)
        self._bind(node.target, value, env)
        return value

    def _lambda(self, node: cst.Lambda, env: dict[str, Value]) -> Value:
        self._run_function(node, env, None)
        return PYTHON

    def _comprehended(self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp,
                      env: dict[str, Value]) -> Value:
        self._comprehension(node, env)
        if isinstance(node, cst.DictComp):
            return UNKNOWN
        return _holding(self.of(node.elt))  # `[params[k] for k in keys]`: what each element is

    def _collection(self, node: cst.Tuple | cst.List | cst.Set, env: dict[str, Value]) -> Value:
        elements = [self._eval(e.value, env) for e in node.elements]
        kinds = {e.kind for e in elements}
        if kinds <= {Kind.PYTHON}:
            return PYTHON_ITEMS if elements else PYTHON  # (`[]`, filled later, may come to hold anything)
        # `(h // p, w // p)` of shape ints: what a shape is (its items are sizes, it is no tensor)
        if kinds <= {Kind.SHAPE_INT, Kind.PYTHON} and not isinstance(node, cst.Set) \
                and not any(isinstance(e, cst.StarredElement) for e in node.elements):
            return SHAPE
        return UNKNOWN

    def _eval_children(self, node: cst.CSTNode, env: dict[str, Value]) -> None:
        for child in content_children(node):
            if isinstance(child, cst.BaseExpression):
                self._eval(child, env)
            else:
                self._eval_children(child, env)

    def _comprehension(self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp,
                       env: dict[str, Value]) -> None:
        inner = dict(env)
        clause: cst.CompFor | None = node.for_in
        while clause is not None:
            iterated = self._eval(clause.iter, inner)
            self._bind(clause.target, iterated, inner, iterated=True, source=clause.iter)
            for condition in clause.ifs:
                self._eval(condition.test, inner)
            clause = clause.inner_for_in
        if isinstance(node, cst.DictComp):
            self._eval(node.key, inner)
            self._eval(node.value, inner)
        else:
            self._eval(node.elt, inner)

    def _name(self, name: str, env: dict[str, Value]) -> Value:
        if name in env:
            return env[name]
        if name in ("True", "False", "None"):
            return PYTHON
        module = self.fn.module
        bound = module.assigns.get(name)
        if bound:  # module-level constants: `USE_FAST = True`, `EPS = 1e-6`; `rng = random.Random(0)`
            if all(_is_literal(b.expr) for b in bound):
                return PYTHON
            return RNG if all(_static_value(b.expr, module.imports.resolve) is RNG for b in bound) else UNKNOWN
        qualified = module.imports.resolve_dotted(name)
        if qualified != name:
            return self._imported_constant(qualified)
        return UNKNOWN

    def _imported_constant(self, qualified: str) -> Value:
        module_name, _, attr = qualified.rpartition(".")
        for module in self.project.by_name.get(module_name, []):
            bound = module.assigns.get(attr)
            if bound and all(_is_literal(b.expr) for b in bound):
                return PYTHON
        return UNKNOWN

    def _attribute(self, node: cst.Attribute, env: dict[str, Value]) -> Value:
        receiver = node.value
        attr = node.attr.value
        if isinstance(receiver, cst.Name) and receiver.value in self._self_names and self._owner:
            self.results[receiver] = env.get(receiver.value, UNKNOWN)
            return self._self_attribute(self._owner, attr)
        base = self._eval(receiver, env)
        if base.tensorish:
            if attr == "shape":
                return SHAPE
            if attr == "ndim":
                return SHAPE_INT
            if attr in TENSOR_PY_ATTRS:
                return PYTHON
            if attr in TENSOR_SELF_ATTRS:
                return _array_of(base)
            return UNKNOWN
        qualified = dotted(node)
        if qualified is not None:
            if _of_config(qualified, self._self_names):
                return PYTHON
            resolved = self.fn.module.imports.resolve_dotted(qualified)
            if resolved.startswith("torch.") and resolved.rpartition(".")[2] in _TORCH_DTYPE_NAMES:
                return PYTHON
            if resolved.startswith(("math.", "sys.", "os.", "string.")):
                return PYTHON
            if resolved != qualified or "." in resolved:
                constant = self._imported_constant(resolved)
                if constant is PYTHON:
                    return PYTHON
        return UNKNOWN

    def _self_attribute(self, cls: ClassInfo, attr: str) -> Value:
        key = (cls, attr)
        found = self._attributes.get(key)
        if found is None:
            found = self._attributes[key] = self._class_attribute(cls, attr)
        return found

    def _class_attribute(self, cls: ClassInfo, attr: str) -> Value:
        if attr == "training":
            return PYTHON
        project = self.project
        if project.is_tensor_attr(cls, attr):
            return TENSOR
        values = project.attr_values(cls, attr)
        if not values:
            return UNKNOWN
        if project.instance_classes(values[0][1].expr, None, values[0][0].module):
            return MODULE
        kinds = {_stored_value(v, k) for k, v in values}
        if len(kinds) == 1:
            return kinds.pop()
        # `self.grid = None` in __init__, a tensor once built (a cache): a probable tensor where read
        built = {_stored_value(v, k) for k, v in values if not _is_none(v.expr)}
        return MAYBE if len(built) == 1 and next(iter(built)).is_tensor else UNKNOWN

    def _subscript(self, node: cst.Subscript, env: dict[str, Value]) -> Value:
        base = self._eval(node.value, env)
        returned = self._elements.get(node.value) if isinstance(node.value, cst.Call) else None
        if returned is not None and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            self._eval(node.slice[0].slice.value, env)
            position = _literal_int(node.slice[0].slice.value)
            if position is not None and -len(returned) <= position < len(returned):
                return returned[position]  # `helper(x)[0]`: that element of its return
        indices = []
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                indices.append(self._eval(element.slice.value, env))
            else:
                for part in (element.slice.lower, element.slice.upper, element.slice.step):
                    if part is not None:
                        self._eval(part, env)
        if base.tensorish:
            return _array_of(base)
        if base.element is not None:  # `targets[0]`, `params["boxes"]`; a slice of a list is the list
            return base if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice) else base.element
        if base.kind is Kind.SHAPE:
            is_slice = any(isinstance(e.slice, cst.Slice) for e in node.slice)
            return SHAPE if is_slice else SHAPE_INT
        if base.kind is Kind.MODULE:
            return MODULE
        if base.kind is Kind.UNKNOWN and _indexes_dimensions(node):
            return MAYBE  # `boxes[:, 2:]`: only a tensor (or an array, which Dynamo traces as one) takes it
        return UNKNOWN

    def _call(self, node: cst.Call, env: dict[str, Value]) -> Value:
        args = [self._eval(arg.value, env) for arg in node.args]
        func = node.func
        if isinstance(func, cst.Attribute) and _is_self(func.value, self._self_names):
            # self.sub(x) runs a submodule (a tensor, most likely); self.helper(x) what it returns.
            return MAYBE if self._eval(func, env).kind is Kind.MODULE else self._returned(node)
        if isinstance(func, cst.Attribute):
            receiver = self._eval(func.value, env)
            method = func.attr.value
            if receiver.tensorish:
                return self._tensor_method(receiver, method, args)
            if receiver.kind is Kind.SHAPE:
                return SHAPE_INT if method in ("numel", "index", "count") else UNKNOWN
            if receiver.kind is Kind.MODULE:
                return MAYBE if method == "forward" else UNKNOWN
            if receiver.kind is Kind.RNG:
                return MAYBE if method in RNG_DRAWS else PYTHON if method in RNG_STATE_METHODS else UNKNOWN
        elif self._eval(func, env).kind is Kind.MODULE:
            return MAYBE
        name = dotted(func)
        if name is None or name.partition(".")[0] in env:
            return UNKNOWN  # a local callable or a method of a local object
        qualified = self.fn.module.imports.resolve_dotted(name)
        result = self._function_result(qualified, node, args)
        return self._returned(node) if result == UNKNOWN else result  # (equal: NumpyFlow makes its own)

    def _returned(self, node: cst.Call) -> Value:
        """What the call gives when it runs a function of the tree (breaklint/analysis/returns.py)."""
        found = self.returns.of_call(node, self._scope) if self.returns is not None else None
        if found is None:
            return UNKNOWN
        if found.elements is not None:
            self._elements[node] = found.elements
        if found.items is not None:
            self._items[node] = dict(found.items)
        return found.value

    def _tensor_method(self, receiver: Value, method: str, args: list[Value]) -> Value:
        if method == "size":
            return SHAPE_INT if args else SHAPE
        if method == "stride":
            return SHAPE_INT if args else SHAPE
        if method in TENSOR_INT_METHODS:
            return SHAPE_INT
        if method in TENSOR_PY_METHODS or method in RETURNS_BOOL or method in RETURNS_INT:
            return PYTHON
        if method in TENSOR_BOOL_METHODS:
            return Value(receiver.kind, True, receiver.numpy)
        if method in BOOL_PRESERVING_METHODS:
            return _array_of(receiver)
        if receiver.numpy and method == "astype":
            return receiver
        return Value(receiver.kind, numpy=receiver.numpy)

    def _function_result(self, qualified: str, node: cst.Call, args: list[Value]) -> Value:
        last = qualified.rpartition(".")[2]
        if qualified == "len":
            return SHAPE_INT if args and (args[0].tensorish or args[0].kind is Kind.SHAPE) else PYTHON
        if qualified in SCALAR_CASTS:
            if args and args[0].kind is Kind.SHAPE_INT:
                return SHAPE_INT
            return PYTHON
        if qualified in CONTAINER_BUILTINS and len(args) == 1 and args[0].element is not None:
            return _holding(args[0].element)  # `tuple(params[k] for k in keys)` holds what the generator gives
        if qualified in PY_RESULT_BUILTINS:
            return PYTHON
        if qualified in NUMERIC_BUILTINS:
            return combine(*args) if args else UNKNOWN
        if qualified.startswith("math."):
            return SHAPE_INT if any(a.kind is Kind.SHAPE_INT for a in args) else PYTHON
        if qualified in TRACED_DRAWS:
            return MAYBE  # a value in the graph, not a Python number: `if random.randint(0, 3) > 0:` breaks
        if qualified == RNG_CLASS:
            return RNG
        name = numpy_name(qualified)
        if name is not None:
            return _numpy_result(name, node, args)
        if qualified == "torch.Size":
            return SHAPE
        if qualified.startswith("torch.nn.") and not qualified.startswith(("torch.nn.functional.", "torch.nn.init.")):
            return MODULE if last[:1].isupper() else UNKNOWN
        # A definition in the checked tree wins over the name's spelling (we may be checking torch).
        found = self.project.lookup(qualified, self.fn.module) if "." in qualified else None
        if isinstance(found, ClassInfo):
            return MODULE if self.project.is_nn_module(found) else UNKNOWN
        if isinstance(found, FunctionInfo) and self.flow is not None:
            return self.flow.returns(found)
        if found is None and qualified.startswith("torch."):
            return _torch_function_result(qualified)
        return UNKNOWN


@lru_cache(maxsize=1)
def _compute_table() -> dict[type, Callable[..., Value]]:
    """FunctionValues._compute's handler for each libcst expression class (none of them is
    subclassed); made on first use (modules read nothing of libcst on import: infra/deferred.py)."""
    return {
        **dict.fromkeys((cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis),
                        FunctionValues._literal),
        cst.FormattedString: FunctionValues._formatted,
        cst.Name: FunctionValues._named,
        cst.Attribute: FunctionValues._attribute,
        cst.Subscript: FunctionValues._subscript,
        cst.Call: FunctionValues._call,
        cst.BinaryOperation: FunctionValues._binary,
        cst.UnaryOperation: FunctionValues._unary,
        cst.BooleanOperation: FunctionValues._boolean,
        cst.Comparison: FunctionValues._comparison,
        cst.IfExp: FunctionValues._conditional,
        cst.NamedExpr: FunctionValues._walrus,
        cst.Lambda: FunctionValues._lambda,
        **dict.fromkeys((cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp), FunctionValues._comprehended),
        **dict.fromkeys((cst.Tuple, cst.List, cst.Set), FunctionValues._collection),
    }


# The standard library's draws that Dynamo 2.13 traces into the graph (its RandomVariable), so
# that what is drawn is a value there, as a tensor's data is: a branch on it breaks (GB0170), a
# slice bound reads it back (GB0124), arithmetic with it does not break. `random.random()` and
# the others are on Dynamo's skip list instead (BL107). Read from real runs (testdata/rules/BL102).
TRACED_DRAWS = frozenset({"random.randint", "random.randrange", "random.uniform"})
# A `random.Random(seed)` instance is Dynamo's RandomVariable (torch 2.13): these draws of it go
# into the graph as TRACED_DRAWS do (`rng.random()` too, though `random.random()` is skipped),
# the state methods are Python, and any other method (`rng.choice`, `rng.shuffle`) breaks with
# "Unsupported method call" (GB0156, BL107). Read from real runs (testdata/rules/BL102, BL107).
RNG_DRAWS = frozenset({"random", "randint", "randrange", "uniform"})
RNG_STATE_METHODS = frozenset({"seed", "getstate", "setstate"})
# The rest of random.Random's public methods (Python 3.12's): each breaks (GB0156).
RNG_BREAKING_METHODS = frozenset(
    {"betavariate", "binomialvariate", "choice", "choices", "expovariate", "gammavariate", "gauss",
     "getrandbits", "lognormvariate", "normalvariate", "paretovariate", "randbytes", "sample", "shuffle",
     "triangular", "vonmisesvariate", "weibullvariate"}
)
RNG_CLASS = "random.Random"


def _numpy_result(name: str, node: cst.Call, args: list[Value]) -> Value:
    """What `numpy.<name>(...)` gives in a region: a traced array (a tensor underneath) for all
    but the few calls Dynamo runs as constants (breaklint/analysis/numpy_api.py)."""
    if name in CONSTANT_CALLS:
        return PYTHON
    positional = [a for a in node.args if a.keyword is None and a.star == ""]
    sized = any(a.keyword is not None and a.keyword.value == "size" for a in node.args)
    if is_scalar_draw(name, len(positional), sized):
        return PYTHON  # drawn eagerly after the break (BL107): a Python number
    boolean = name.rpartition(".")[2] in TORCH_BOOL_FUNCS
    from_scalars = name in ELEMENTWISE and all(_scalar_argument(a.value, v) for a, v in zip(node.args, args))
    return Value(Kind.TENSOR, boolean, numpy=True, from_scalars=from_scalars)


def _scalar_argument(expr: cst.BaseExpression, value: Value) -> bool:
    """A Python number (or a NumPy value made from numbers), not a list, an array or a tensor."""
    if value.tensorish:
        return value.numpy and value.from_scalars
    return not isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.ListComp, cst.GeneratorExp))


def _torch_function_result(qualified: str) -> Value:
    """What `torch.fn(...)` returns, from the ATen schemas (breaklint/analysis/torch_api.py)."""
    parts = qualified.split(".")[1:]
    if parts[:2] == ["nn", "functional"] or parts[0] == "functional":
        return TENSOR  # torch.nn.functional.* and torch.functional.*: tensor in, tensor out
    if len(parts) == 2 and parts[0] in ATEN_PREFIXED_NAMESPACES:
        op = f"{parts[0]}_{parts[1]}"
    elif len(parts) == 1:
        op = parts[0]
    else:
        return UNKNOWN  # torch.cuda.*, torch.accelerator.*, torch.distributed.*: not tensors
    if op in _TORCH_DTYPE_NAMES:
        return PYTHON
    return _op_result(op, Kind.TENSOR) if op in _KNOWN_OPS else UNKNOWN


_KNOWN_OPS = RETURNS_TENSOR | RETURNS_BOOL | RETURNS_INT


def _op_result(op: str, tensor_kind: Kind) -> Value:
    """The value an ATen op (as a function or a tensor method) returns."""
    if op in RETURNS_BOOL:
        return PYTHON
    if op in RETURNS_INT:
        return SHAPE_INT if op in SHAPE_INT_OPS else PYTHON
    return Value(tensor_kind, op in TORCH_BOOL_FUNCS)


_TORCH_DTYPE_NAMES = frozenset(
    {"float32", "float", "float64", "double", "float16", "half", "bfloat16", "int8", "int16",
     "int32", "int64", "long", "int", "uint8", "bool", "complex64", "complex128", "cfloat",
     "float8_e4m3fn", "float8_e5m2", "short", "uint16", "uint32", "uint64"}
)


def _is_self(expr: cst.BaseExpression, self_names: set[str]) -> bool:
    return isinstance(expr, cst.Name) and expr.value in self_names


def _literal_int(expr: cst.BaseExpression) -> int | None:
    """The value of an integer literal (`0`, `-1`), else None."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = _literal_int(expr.expression)
        return -inner if inner is not None else None
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    return None


def _is_literal(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in ("True", "False", "None")
    if isinstance(expr, cst.UnaryOperation):
        return _is_literal(expr.expression)
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
        return all(_is_literal(e.value) for e in expr.elements)
    return False


def _static_value(expr: cst.BaseExpression, resolve) -> Value:  # type: ignore[no-untyped-def]
    """What a class attribute holds, judged from an expression a method stored in it (and what a
    module-level generator is, `rng = random.Random(0)`)."""
    if _is_literal(expr):
        return PYTHON
    if isinstance(expr, cst.Attribute) and _of_config(dotted(expr) or "", ("self",)):
        return PYTHON  # `self.patch_size = config.patch_size`
    if isinstance(expr, cst.IfExp):  # `torch.as_tensor(w) if w is not None else torch.ones(n)`
        body = _static_value(expr.body, resolve)
        return body if body == _static_value(expr.orelse, resolve) else UNKNOWN
    if isinstance(expr, cst.Call):
        name = resolve(expr.func) or ""
        if name in ("torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer"):
            return TENSOR
        if name.startswith("torch.nn.") and name.rpartition(".")[2][:1].isupper():
            return MODULE  # torch.nn.Linear(...), torch.nn.ModuleList(...)
        if name.startswith("torch.") and not name.startswith("torch.nn."):
            return _torch_function_result(name)
        if name in SCALAR_CASTS:
            return PYTHON
        if name == RNG_CLASS:
            return RNG  # `self.rng = random.Random(seed)`
        func = expr.func
        if isinstance(func, cst.Attribute) and _keeps_tensor(func.attr.value) \
                and _static_value(func.value, resolve).is_tensor:
            return TENSOR  # `torch.ones(n).to(device)`
    return UNKNOWN


def _of_config(qualified: str, self_names: Collection[str]) -> bool:
    """`config.patch_size`, `self.config.patch_size`: a value of the model's configuration."""
    head, _, rest = qualified.partition(".")
    if head in self_names:
        head, _, rest = rest.partition(".")
    return head in CONFIG_NAMES and bool(rest)


def _is_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


def _stored_value(stored: Assigned, klass: ClassInfo) -> Value:
    """What `self.attr = expr` in a method of `klass` stores. A local of that method (`w =
    torch.ones(n)` ... `self.w = w`) holds what its bindings there give, where an update by a
    method only tensors have (`w = w.to(dtype)`) keeps what the name held; a parameter, or a
    name bound by iteration or unpacking, says nothing."""
    resolve = klass.module.imports.resolve
    expr = stored.expr
    if type(expr) is not cst.Name:
        return _static_value(expr, resolve)
    name = expr.value
    method = klass.methods.get(stored.method) if stored.method is not None else None
    if method is None or name not in method.assigns or name in method.header.params:
        return UNKNOWN
    bound = method.assigns[name]
    kinds = {_static_value(b.expr, resolve) for b in bound if not _updated_in_place(b.expr, name)}
    if len(kinds) != 1 or any(b.iterated for b in bound):
        return UNKNOWN
    return kinds.pop()


def _updated_in_place(expr: cst.BaseExpression, name: str) -> bool:
    """`name.to(dtype)`, `name.float()`: a tensor-only method of the name itself, which keeps a
    tensor a tensor (a Python value has no such method)."""
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) \
        and isinstance(expr.func.value, cst.Name) and expr.func.value.value == name \
        and _keeps_tensor(expr.func.attr.value)


def _keeps_tensor(method: str) -> bool:
    """A method only tensors have that gives a tensor (`to`, `float`, `clone`): called on a
    tensor, a tensor; no Python value has it."""
    return method in TENSOR_EVIDENCE_ATTRS and method in RETURNS_TENSOR


def annotated_return(node: cst.FunctionDef) -> tuple[Value, tuple[Value, ...] | None] | None:
    """What a def's return annotation (or PEP 484 type comment) says it gives: a tensor
    (`-> Tensor`, `-> Optional[Tensor]`), a container of tensors (`-> List[Tensor]`), or a tuple
    of which some elements are tensors (`-> Tuple[Tensor, Tensor]`: its elements); None when it
    says neither."""
    annotation = node.returns.annotation if node.returns is not None else _commented_return(node)
    if annotation is None:
        return None
    value = _annotation_value(annotation)
    if value.is_tensor or value.element is not None:  # a tensor, or what holds tensors (`-> List[Tensor]`)
        return value, None
    if isinstance(annotation, cst.Subscript) and dotted(annotation.value) in ("Tuple", "typing.Tuple", "tuple"):
        elements = tuple(_annotation_value(e.slice.value) for e in annotation.slice if isinstance(e.slice, cst.Index))
        if any(e.is_tensor for e in elements) and len(elements) == len(annotation.slice) \
                and not any(isinstance(e.slice.value, cst.Ellipsis) for e in annotation.slice):  # type: ignore[union-attr]
            return UNKNOWN, elements
    return None


def _indexes_dimensions(node: cst.Subscript) -> bool:
    """An index of several dimensions with a slice in it, or with `...` or `None` (`x[:, 2:]`,
    `x[..., 0]`, `x[:, None]`): a list, a tuple or a dict takes none of these."""
    if len(node.slice) < 2:
        return False
    for element in node.slice:
        part = element.slice
        if isinstance(part, cst.Slice):
            return True
        if isinstance(part.value, cst.Ellipsis) or (isinstance(part.value, cst.Name) and part.value.value == "None"):
            return True
    return False


def _type_comment_text(node: cst.FunctionDef) -> str | None:
    """`(A, B) -> R` of a `# type: (A, B) -> R` comment on the `def` line or the line after it."""
    body = node.body
    if not isinstance(body, cst.IndentedBlock):
        return None
    comments = [body.header.comment] + [line.comment for line in (body.body[0].leading_lines if body.body else ())]
    text = next((c.value for c in comments if c is not None and c.value.startswith("# type:")), None)
    return text[len("# type:"):] if text is not None and "->" in text else None


def _commented_return(node: cst.FunctionDef) -> cst.BaseExpression | None:
    text = _type_comment_text(node)
    if text is None:
        return None
    try:
        return cst.parse_expression(text.rpartition("->")[2].strip())
    except cst.ParserSyntaxError:
        return None


def _commented_types(node: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """`# type: (A, B) -> R` on the `def` line or the line after it: each named parameter's type
    (a method's `self` or `cls` left out, as PEP 484 has it); {} when there is none or it does not fit."""
    text = _type_comment_text(node)
    if text is None:
        return {}
    signature = text.rpartition("->")[0].strip()
    try:
        call = cst.parse_expression("f" + signature)
    except cst.ParserSyntaxError:
        return {}
    if not isinstance(call, cst.Call) or any(arg.keyword is not None for arg in call.args):
        return {}
    types = [arg.value for arg in call.args if not arg.star]
    if any(isinstance(t, cst.Ellipsis) for t in types):  # `(...) -> R`: the return type only
        return {}
    params = node.params
    named = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
    if len(types) == len(named) - 1 and named[0] in ("self", "cls"):
        named = named[1:]
    return dict(zip(named, types)) if len(types) == len(named) else {}


# Annotations of what holds values of one kind: its last argument is that kind (`Dict[str,
# Tensor]`, `List[Tensor]`), its first for a tuple of any length (`Tuple[Tensor, ...]`).
CONTAINERS = frozenset({"List", "list", "Sequence", "MutableSequence", "Iterable", "Dict", "dict", "Mapping",
                        "MutableMapping", "Tuple", "tuple"})


def _union_value(members: list[cst.BaseExpression]) -> Value:
    """`Tensor | None`, `Union[Tensor, SparseTensor]`: a tensor. A union with a Python value type
    (`Union[float, Tensor]`, `int | Tensor`, `str | Tensor`) says nothing: such code tests
    `isinstance` to tell them apart, which the values do not follow, so the number's branch
    would read as a tensor's. A union with a container (`Tensor | tuple[Tensor] | None`, an MoE
    router's logits) is a tensor that may be the container instead (Value.or_container)."""
    values = [_annotation_value(m) for m in members]
    if all(v.kind is Kind.PYTHON for v in values):  # `int | None`, `tuple[int, int] | None`: no tensor among them
        held = [v for m, v in zip(members, values) if dotted(m) != "None"]
        return PYTHON_ITEMS if held and all(v == PYTHON_ITEMS for v in held) else PYTHON
    # (a container of Python values beside a tensor, `list[int] | Tensor`, is read as before it
    # was known as one: a tensor that may be the container)
    numbers = [m for m, v in zip(members, values)
               if v.kind is Kind.PYTHON and dotted(m) != "None" and not _names_container(m)]
    if numbers:
        return UNKNOWN
    tensor = next((v for v in values if v.is_tensor), UNKNOWN)
    if tensor.is_tensor and any(_names_container(m) for m in members):
        return replace(tensor, or_container=True)
    return tensor


def _names_container(annotation: cst.BaseExpression) -> bool:
    """`tuple[Tensor]`, `List[Tensor]`, `dict`: a container type, held or not."""
    named = annotation.value if isinstance(annotation, cst.Subscript) else annotation
    text = dotted(named)
    return text is not None and text.rpartition(".")[2] in CONTAINERS


def _annotation_value(annotation: cst.BaseExpression) -> Value:
    text = dotted(annotation)
    if isinstance(annotation, cst.SimpleString):
        text = annotation.evaluated_value if isinstance(annotation.evaluated_value, str) else None
    if isinstance(annotation, cst.Subscript):  # Optional[Tensor], Union[Tensor, SparseTensor]
        text = dotted(annotation.value)
        inner = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
        if text in ("Optional", "typing.Optional") and inner:
            return _annotation_value(inner[0])
        if text in ("Union", "typing.Union"):
            return _union_value(inner)
        if text is not None and text.rpartition(".")[2] in CONTAINERS and inner:
            if text.rpartition(".")[2] in ("Tuple", "tuple") and not (len(inner) == 2 and isinstance(inner[1], cst.Ellipsis)):
                # a fixed tuple: its elements differ (returns read `Tuple[Tensor, Tensor]` apart),
                # unless each is a Python value (`tuple[int, int]`: a Python value)
                return PYTHON_ITEMS if all(_annotation_value(e).kind is Kind.PYTHON for e in inner) else UNKNOWN
            variadic = len(inner) == 2 and isinstance(inner[1], cst.Ellipsis)  # `Tuple[Tensor, ...]`
            return _holding(_annotation_value(inner[0] if variadic else inner[-1]))
        return UNKNOWN
    if isinstance(annotation, cst.BinaryOperation):  # Tensor | None
        return _union_value([annotation.left, annotation.right])
    if text is None:
        return UNKNOWN
    if text.rpartition(".")[2] == "Tensor":
        return TENSOR
    if text in ("int", "float", "bool", "str", "bytes", "complex", "None"):
        return PYTHON
    return UNKNOWN


def _all_nested(fn: FunctionInfo) -> list[FunctionInfo]:
    found = list(fn.nested)
    for inner in fn.nested:
        found.extend(_all_nested(inner))
    return found


# Attributes and methods that only tensors (and arrays) have: using one on a name is evidence.
TENSOR_EVIDENCE_ATTRS = (
    (RETURNS_TENSOR - {"split", "count", "index", "copy", "format", "join", "get", "update", "keys",
                       "values", "items", "pop", "append", "extend", "insert", "remove", "sort",
                       "add", "clear", "all", "any", "round", "real", "imag", "conj",
                       "log", "select", "slice"})  # logger.log(...), a query's select()
    | {"shape", "dtype", "device", "ndim", "size", "dim", "numel", "item", "tolist", "numpy",
       "requires_grad", "grad", "is_cuda", "float", "half", "long", "int", "bool", "contiguous"}
)


# torch factories whose positional arguments are sizes (or range bounds), not tensors.
SIZE_FACTORIES = frozenset(
    f"torch.{name}" for name in ("zeros", "ones", "empty", "rand", "randn", "randint", "arange",
                                 "linspace", "logspace", "eye", "randperm", "empty_strided", "tril_indices",
                                 "triu_indices")
)


def used_as_tensor(function: cst.FunctionDef | cst.Lambda, resolve) -> set[str]:  # type: ignore[no-untyped-def]
    """Names the function body uses as tensors: `x.sum()`, `x.shape`, `torch.cat([x])`, `a @ x`."""
    found: set[str] = set()
    for node in content_nodes(function.body):
        kind = type(node)
        if kind is cst.Attribute:
            if isinstance(node.value, cst.Name) and node.attr.value in TENSOR_EVIDENCE_ATTRS:  # type: ignore[attr-defined]
                found.add(node.value.value)  # type: ignore[attr-defined]
        elif kind is cst.Call:
            name = resolve(node.func) or ""  # type: ignore[attr-defined]
            if name.startswith("torch."):
                sizes = name in SIZE_FACTORIES  # `torch.zeros(bsz, n_heads)`: sizes, Python ints
                for arg in node.args:  # type: ignore[attr-defined]
                    if isinstance(arg.value, cst.Name) and not (sizes and arg.keyword is None):
                        found.add(arg.value.value)
        elif kind is cst.BinaryOperation and isinstance(node.operator, cst.MatrixMultiply):  # type: ignore[attr-defined]
            found.update(side.value for side in (node.left, node.right)  # type: ignore[attr-defined]
                         if isinstance(side, cst.Name))
    return found