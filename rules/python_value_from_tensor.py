"""BL118 python-value-from-tensor: a Python value (a bool, an order, a bound, a size) computed from tensor data."""

from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import FileContext, FunctionInfo, content_nodes, method_call, real_node, Rule

# Each form and what Dynamo 2.13 says at it (read from real runs, testdata/rules/BL118).
DATA_BOOL = "GB0033"  # torch.equal / allclose / is_nonzero: an op whose output is a Python bool
BOOL_FUNCTIONS = frozenset({"torch.equal", "torch.allclose"})
BOOL_METHODS = frozenset({"equal", "allclose", "is_nonzero"})
SORT_KEYS = "GB0207"  # sorted() comparing tensors
SORT_ITERATED = "GB0059"  # sorted() of a tensor iterates it, then compares 0-d tensors
SLICE_BOUND = "GB0124"  # slice(start, stop) with a tensor bound calls its __index__ (.item())
DATA_POINTERS = "GB5976"  # x.data_ptr() == y.data_ptr()
STORAGE_BYTES = "GB0156"  # x.untyped_storage().nbytes()
TRUTH_OF_ELEMENTS = "GB0170"  # any()/all() over tensor tests: the polyfill branches on each
# A size drawn by `random.randint` is a Python int Dynamo does not specialise: a tensor made
# with it has a size from no input (GB0033), a view with it a builtin op on it (GB0213).
RANDOM_SIZE = ("GB0033", "GB0213")
RANDOM_INTS = frozenset({"random.randint"})
SIZED_FUNCTIONS = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.randn", "torch.rand",
                             "torch.full", "torch.arange", "torch.randperm"})
SIZED_METHODS = frozenset({"new_zeros", "new_ones", "new_empty", "new_full", "reshape", "view", "expand",
                           "repeat"})
# A sort key that reads a tensor's values (not its shape).
VALUE_KEYS = frozenset({"sum", "mean", "max", "min", "norm", "abs", "amax", "amin", "std", "var", "item"})


class PythonValueFromTensor(Rule):
    """## What it does
    Finds Python values computed from a tensor's data in a compiled region, beyond `.item()`
    (BL101): `torch.equal(a, b)`, `torch.allclose(a, b)` and `t.is_nonzero()` (Python bools);
    `sorted()` over tensors or with a key that reads tensor values; `slice(start, stop)` with
    a tensor bound; `a.data_ptr() == b.data_ptr()` of tensors computed in the region (not of
    parameters: Dynamo compares a module's real weights itself, so a tied-weights check traces); `t.untyped_storage().nbytes()`; `any()` /
    `all()` over a generator or list of tensor tests; and a size drawn with `random.randint`
    given to a tensor factory or a view (`torch.randn(k)`, `x.reshape(n * 4, -1)`).

    ## Why is this bad?
    Each of these needs the tensor's values (or its real storage) as a Python object while
    Dynamo traces with fake tensors that have none. Dynamo ends the graph there, runs the line
    eagerly, and resumes in a new graph; `any()` over a generator also makes it give up on the
    rest of the frame.

    ## How to fix
    Keep the result a tensor: `(a == b).all()` or `torch.isclose(a, b).all()` and
    `torch.where` instead of `if torch.equal(...)`; `torch.sort`/`torch.topk` instead of
    `sorted()`; `x.narrow` with a Python int, or a mask, instead of a tensor slice bound;
    `torch.stack([...]).gt(0).any()` instead of `any(t > 0 for t in ...)`. Compare storages
    outside the compiled code, and draw random sizes outside it (pass them in).

    ## When it is fine
    Outside compiled code, or in a check that runs once (at construction) rather than per call.
    A sort key that reads a shape (`key=lambda t: t.shape[0]`) is traced.

    ## Dynamo says
    `Data dependent operator` (GB0033) for `torch.equal`, `torch.allclose`, `is_nonzero` and a
    factory sized by `random.randint`; `sort with non-constant keys` (GB0207); `Failed to trace
    builtin operator` (GB0059) for `sorted(tensor)`; `Unsupported Tensor.item() call with
    capture_scalar_outputs=False` (GB0124) for a tensor `slice()` bound; `Data pointer
    comparison` (GB5976, torch 2.13); `Unsupported method call` (GB0156) for
    `untyped_storage().nbytes()`; `Data-dependent branching` (GB0170) for `any()`/`all()`;
    `unimplemented builtin op on tensor arguments` (GB0213) for a view sized by
    `random.randint`.
    """

    code = "BL118"
    name = "python-value-from-tensor"
    stage = Stage.DYNAMO
    message = "{what} in {region} needs a tensor's data as a Python value and forces a graph break"
    help = ("keep it a tensor: (a == b).all() instead of torch.equal, torch.sort instead of sorted(), "
            "torch.stack(...).any() instead of any(...); draw sizes outside the compiled code")
    dynamo_says = {
        "GB0033": "Data dependent operator",
        "GB0207": "sort with non-constant keys",
        "GB0059": "Failed to trace builtin operator",
        "GB0124": "Unsupported Tensor.item() call with capture_scalar_outputs=False",
        "GB5976": "Data pointer comparison",
        "GB0156": "Unsupported method call",
        "GB0170": "Data-dependent branching",
        "GB0213": "unimplemented builtin op on tensor arguments",
    }
    bad = ("import torch\n\n@torch.compile\ndef f(x, y):\n    if torch.equal(x, y):\n        return x\n    return y\n",)
    good = ("import torch\n\n@torch.compile\ndef f(x, y):\n    return torch.where((x == y).all(), x, y)\n",)

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._assigned: dict[FunctionInfo, dict[str, list[cst.BaseExpression]]] = {}  # see _bound_in_tree

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func) or ""
        found = self._form(node, resolved)
        if found is not None:
            what, says, confidence = found
            self.report(node, confidence=confidence, says=says, what=what)

    def _form(self, node: cst.Call, resolved: str) -> tuple[str, str | tuple[str, ...], Confidence] | None:
        builtin = resolved if isinstance(node.func, cst.Name) else ""
        if resolved in BOOL_FUNCTIONS and node.args and self._tensorish(node.args[0].value):
            return f"`{resolved}()`", DATA_BOOL, Confidence.CERTAIN
        receiver = method_call(node, BOOL_METHODS)
        if receiver is not None and resolved not in BOOL_FUNCTIONS and self._tensorish(receiver):
            return f"`.{node.func.attr.value}()`", DATA_BOOL, self._confidence([receiver])  # type: ignore[attr-defined]
        if builtin == "sorted" and node.args:
            return self._sorted(node)
        bounds = [a.value for a in node.args if self._tensorish(a.value)] if builtin == "slice" else []
        if bounds:
            return "`slice()` with a tensor bound", SLICE_BOUND, self._confidence(bounds)
        if builtin in ("any", "all") and len(node.args) == 1:
            elements = self._elements(node.args[0].value)
            if elements and all(self._tensorish(e) for e in elements):
                return f"`{builtin}()` over tensor tests", TRUTH_OF_ELEMENTS, self._confidence(elements)
            if self._tests_tensors(node.args[0].value):
                return f"`{builtin}()` over tensor tests", TRUTH_OF_ELEMENTS, Confidence.LIKELY
        receiver = method_call(node, ("nbytes",))
        if receiver is not None and isinstance(receiver, cst.Call):
            storage = method_call(receiver, ("untyped_storage",))
            if storage is not None and self.ctx.value(storage).tensorish:
                return "`untyped_storage().nbytes()`", STORAGE_BYTES, Confidence.CERTAIN
        if self._sized_by_random(node, resolved):
            return "a size drawn by `random.randint`", RANDOM_SIZE, Confidence.CERTAIN
        return None

    def visit_Comparison(self, node: cst.Comparison) -> None:
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        pointers = [o for o in operands if isinstance(o, cst.Call) and method_call(o, ("data_ptr",)) is not None]
        receivers = [method_call(p, ("data_ptr",)) for p in pointers]
        # Parameters and buffers (`self.head.weight`) are real tensors Dynamo holds: it compares
        # them itself (tied weights trace). Tensors computed in the region are fake: it cannot.
        if len(pointers) >= 2 and all(self.ctx.value(r).tensorish and not _attribute_of_self(r)  # type: ignore[arg-type]
                                      for r in receivers):
            self.report(node, confidence=Confidence.CERTAIN, says=DATA_POINTERS, what="`.data_ptr()` comparison")

    def _tensorish(self, expr: cst.BaseExpression) -> bool:
        return self.ctx.value(expr).tensorish

    def _confidence(self, exprs: list[cst.BaseExpression]) -> Confidence:
        """certain when every value is known to be a tensor; likely when some may be one."""
        return Confidence.CERTAIN if all(self.ctx.value(e).is_tensor for e in exprs) else Confidence.LIKELY

    def _elements(self, expr: cst.BaseExpression) -> list[cst.BaseExpression] | None:
        """The elements of a list or tuple display, or of the one display a local name is bound to."""
        if isinstance(expr, cst.Name):
            bound = self._bound_in_tree(expr.value)
            expr = bound if bound is not None else expr
        if isinstance(expr, (cst.List, cst.Tuple)):
            return [e.value for e in expr.elements if isinstance(e, cst.Element)]
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
            return [expr.elt]
        return None

    def _bound_in_tree(self, name: str) -> cst.BaseExpression | None:
        """The value a local name is bound to once, as a node of this file's tree (the index's
        own nodes have no values: ctx.value judges the tree being visited)."""
        fn = self.ctx.function
        if fn is None or self.ctx.local_test(name) is None:
            return None
        by_name = self._assigned.get(fn)
        if by_name is None:  # one search per function, not one per name asked
            root = real_node(fn.node)
            by_name = self._assigned[fn] = {}
            for node in content_nodes(root, enter=lambda node: node is root or not isinstance(node, cst.FunctionDef)):
                if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
                    by_name.setdefault(node.targets[0].target.value, []).append(node.value)
        found = by_name.get(name, ())
        return found[0] if len(found) == 1 else None

    def _tests_tensors(self, expr: cst.BaseExpression) -> bool:
        """`(t.sum() > 0 for t in (x, y))`: a test on each element of tensors, its values not its shape."""
        if not isinstance(expr, (cst.GeneratorExp, cst.ListComp)) or expr.for_in.inner_for_in is not None:
            return False
        target, elements = expr.for_in.target, self._elements(expr.for_in.iter)
        if not isinstance(target, cst.Name) or not elements or not all(self._tensorish(e) for e in elements):
            return False
        test = expr.elt
        if not isinstance(test, cst.Comparison) or not isinstance(test.left, cst.Call):
            return False
        receiver = method_call(test.left, VALUE_KEYS)
        return isinstance(receiver, cst.Name) and receiver.value == target.value

    def _sorted(self, node: cst.Call) -> tuple[str, str, Confidence] | None:
        iterable = node.args[0].value
        key = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "key"), None)
        if key is not None:
            body = key.body if isinstance(key, cst.Lambda) else None
            reads_values = isinstance(body, cst.Call) and method_call(body, VALUE_KEYS) is not None
            return ("`sorted()` with a key on tensor values", SORT_KEYS, Confidence.LIKELY) if reads_values else None
        if self._tensorish(iterable):
            return "`sorted()` of a tensor", SORT_ITERATED, self._confidence([iterable])
        elements = self._elements(iterable)
        if elements and all(self._tensorish(e) for e in elements):
            return "`sorted()` of tensors", SORT_KEYS, self._confidence(elements)
        return None

    def _sized_by_random(self, node: cst.Call, resolved: str) -> bool:
        method = isinstance(node.func, cst.Attribute) and node.func.attr.value in SIZED_METHODS
        if resolved not in SIZED_FUNCTIONS and not method:
            return False
        drawn = any(isinstance(bound, cst.Call) and self.ctx.resolve(bound.func) in RANDOM_INTS
                    for arg in node.args for name in _names(arg.value)
                    for bound in [self._bound_in_tree(name)])
        return drawn and (not method or self.ctx.value(node.func.value).tensorish)  # type: ignore[attr-defined]


def _attribute_of_self(expr: cst.BaseExpression) -> bool:
    """`self.x` or `self.a.weight`: a module's own parameter or buffer."""
    while isinstance(expr, cst.Attribute):
        expr = expr.value
        if isinstance(expr, cst.Name):
            return expr.value == "self"
    return False


def _names(expr: cst.BaseExpression) -> list[str]:
    """The plain names an argument is computed from (`n * 4` -> ["n"])."""
    if isinstance(expr, cst.Name):
        return [expr.value]
    if isinstance(expr, cst.BinaryOperation):
        return _names(expr.left) + _names(expr.right)
    if isinstance(expr, cst.UnaryOperation):
        return _names(expr.expression)
    return []
