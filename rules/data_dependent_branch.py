from __future__ import annotations

from typing import Callable, Iterator

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import content_nodes, FileContext, Kind, Value
from breaklint.versions import Versions, pick

from ._cold_paths import report_conditional, training_arm
from ._nonstrict import NONSTRICT_SAYS, NonstrictCallSites

# A list or tuple compared with one holding a tensor: torch 2.13 names it (GB6622, new in its
# registry); 2.11 breaks at the tensor's bool (GB0170, measured), and so, by the registry, 2.12.
SEQUENCE_COMPARE_SAYS = {"GB0170": Versions(high="2.12"), "GB6622": Versions(low="2.13")}


def truth_tested(expr: cst.BaseExpression,
                 known: Callable[[cst.BaseExpression], bool | None] = lambda _: None) -> Iterator[cst.BaseExpression]:
    """The operands whose truth value a test evaluates: through `and`, `or`, `not`, parentheses.
    `known` gives what Dynamo knows an operand to be while tracing: `not is_compiling() and x.any()`
    never evaluates `x.any()` (the `and` is decided on its left)."""
    if isinstance(expr, cst.BooleanOperation):
        yield from truth_tested(expr.left, known)
        if known(expr.left) is not isinstance(expr.operator, cst.Or):
            yield from truth_tested(expr.right, known)
    elif isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        yield from truth_tested(expr.expression, known)
    else:
        yield expr


def _holds(expr: cst.BaseExpression, target: cst.BaseExpression) -> bool:
    """Whether `target` is `expr` or inside it."""
    if expr is target:
        return True
    return any(node is target for node in content_nodes(expr))


def _decided_while_tracing(expr: cst.BaseExpression) -> bool:
    """A test Dynamo evaluates itself from what it guards on: a dtype or device comparison,
    `self.training`, or a setting (`self.config.x`, a plain name or attribute chain)."""
    source = cst.Module([]).code_for_node(expr)
    if ".dtype" in source or ".device" in source or ".training" in source or ".is_cuda" in source:
        return True
    inner = expr.expression if isinstance(expr, cst.UnaryOperation) else expr
    return isinstance(inner, (cst.Name, cst.Attribute))


def _operator(operator: cst.BaseCompOp) -> str:
    """How a comparison operator is spelled (`==`, `!=`, `<`, ...)."""
    return {"Equal": "==", "NotEqual": "!=", "LessThan": "<", "LessThanEqual": "<=", "GreaterThan": ">",
            "GreaterThanEqual": ">="}.get(type(operator).__name__, "==")


# A test on NumPy computed from Python values: nothing to select with torch.where.
NUMPY_HELP = "compute the value with Python ints and math (math.lcm, sum(counts)) so that the test is on a Python value"


class DataDependentBranch(NonstrictCallSites):
    """## What it does
    Finds Python control flow that depends on a tensor's values inside a compiled region: `if`,
    `elif`, `while`, a conditional expression, `and`/`or`/`not` on a tensor, and comprehension
    filters. Also a list or tuple compared with one that holds a tensor: `assert list(t.size())
    == [batch, n, seq_len]` with a tensor `n` (a count returned by a helper), `if x.shape !=
    (b, n):` — Python compares element by element and needs each `==` as a bool.

    ## Why is this bad?
    Dynamo traces one path through the code. When the path depends on data it cannot know at
    trace time (`if x.sum() > 0`), it ends the graph, runs the test eagerly and compiles each side
    separately: a graph break, and a device sync to read the value.

    Tests on shapes (`x.dim() == 3`, `x.shape[0] > 1`), on `self.training` or on Python
    values are fine: Dynamo turns them into guards.

    A NumPy value is a tensor here: Dynamo traces NumPy as tensors (torch._numpy), also NumPy
    called on Python values, so `m = np.lcm(a, b)` and then `if n % m != 0:` (or a flag made
    from it and tested later) is a data-dependent branch, as is a test of an element of
    `np.array(...)` or of a parameter every caller in the file passes one.

    ## How to fix
    Compute both sides and select with `torch.where(cond, a, b)`; use `torch.cond(pred, true_fn,
    false_fn, operands)` for real control flow; or move the branch out of the compiled function.
    For NumPy on Python values, compute with Python ints and `math` (`math.lcm(a, b)`), or build
    the plan once outside `forward` (in `__init__`, or a `torch.compiler.disable`d helper).

    ## When it is fine
    When the branch is rare and the break is measured to be cheap, or the code is not compiled.
    A parameter of a compiled function that every call in its own file passes as a Python
    constant (`scaled(x, True)`, `scaled(x, use_bias=False)`) is a Python value: Dynamo
    specialises on it, and `if flag:` is not reported.
    A tensor test that only runs under a test Dynamo decides while tracing is reported
    `possible` (severity info), naming that test: `if x.dtype == torch.float16 and not
    torch.isfinite(x).all():` breaks only for float16 inputs. A LayerDrop test under `if
    self.training:` breaks in every training call: it is `likely`, and `possible` only where the
    module is compiled in eval mode in the same file (`torch.compile(model.eval())`, or
    `model.eval()` on the compiled name or its module).

    ## Dynamo says
    `Data-dependent branching` (GB0170); `list_richcompare_nonconst` (GB6622, torch 2.13) for a
    list or tuple comparison with a tensor element (GB0170 on torch 2.11, measured; Dynamo 2.11
    cannot resume after such an `assert` spread over several lines, and runs the rest of the
    function eagerly).
    At the call of a `nonstrict_trace` function whose body does this: `Unsupported output type for
    nonstrict_trace-ed function` (GB0251).

    ## Versions
    A `while` test on a tensor breaks each time it runs; whether Dynamo then gives up on the loop
    depends on the Python, not on torch. From Python 3.12 the test at the end of each pass is
    followed by a jump back (`POP_JUMP_IF_FALSE; JUMP_BACKWARD`), so Dynamo sees a break in a
    loop and runs the loop and the rest of the function uncompiled ("graph break in loop",
    GB7000, seen with torch 2.11 on Python 3.12): the finding is an error. On Python 3.11 the
    test's jump is the backward jump itself, and Dynamo resumes after it (no GB7000, torch 2.13
    on Python 3.11): a warning. breaklint judges the Python it runs on.
    """

    code = "BL102"
    name = "data-dependent-branch"
    stage = Stage.DYNAMO
    applies_nonstrict = True  # still breaks in a nonstrict_trace body (and at its call: GB0251)
    message = "data-dependent `{statement}` on {subject} in {region} forces a graph break"
    help = (
        "select with torch.where(cond, a, b), use torch.cond for real control flow, or branch outside the "
        "compiled code"
    )
    dynamo_says = {"GB0170": "Data-dependent branching", "GB6622": "list_richcompare_nonconst", **NONSTRICT_SAYS}
    bad = (
        "import torch\n\n@torch.compile\ndef f(x):\n    if x.sum() > 0:\n        return x\n    return -x\n",
        "import torch\n\n@torch.compile\ndef f(x):\n    return x if x.max() > 0 else -x\n",
    )
    good = (
        "import torch\n\n@torch.compile\ndef f(x):\n    if x.dim() == 3:\n        return x\n    return -x\n",
        "import torch\n\n@torch.compile\ndef f(x):\n    return torch.where(x.sum() > 0, x, -x)\n",
    )

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._tests: set[cst.BaseExpression] = set()  # operands already judged as part of a test

    def visit_If(self, node: cst.If) -> None:
        self._check_test(node.test, node.test, "if")

    def visit_While(self, node: cst.While) -> None:
        self._check_test(node.test, node.test, "while")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._check_test(node.test, node.test, "... if ... else ...")

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._check_test(node.test, node.test, "comprehension filter")

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        # Outside a test, `a and b` still asks for bool(a).
        if node in self._tests or node.left in self._tests:
            return
        self._check_test(node.left, node, "and" if isinstance(node.operator, cst.And) else "or")

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not) and node not in self._tests:
            self._check_test(node.expression, node, "not")

    def visit_Comparison(self, node: cst.Comparison) -> None:
        left = node.left
        for target in node.comparisons:
            right = target.comparator
            if not isinstance(target.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                held = self._tensor_in_sequence(left, right) or self._tensor_in_sequence(right, left)
                if held is not None:
                    value, kind = held
                    confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
                    self.report(node, confidence=confidence, says=pick(SEQUENCE_COMPARE_SAYS, self.ctx.target_torch),
                                statement=_operator(target.operator),
                                subject=f"a {kind} holding a tensor")
                    return  # Dynamo breaks at the first one
            left = right

    def _tensor_in_sequence(self, display: cst.BaseExpression, other: cst.BaseExpression
                            ) -> tuple[Value, str] | None:
        """A list/tuple display with a tensor element, compared with a sequence of its kind (a
        display of the same length, `list(...)` / `tuple(...)`, a shape): each element pair is
        compared as a bool, and a tensor's `==` has no bool while tracing (GB6622)."""
        if not isinstance(display, (cst.List, cst.Tuple)) or any(
                isinstance(e, cst.StarredElement) for e in display.elements):
            return None
        kind = "list" if isinstance(display, cst.List) else "tuple"
        if isinstance(other, (cst.List, cst.Tuple)):
            if type(other) is not type(display) or len(other.elements) != len(display.elements):
                return None
        elif isinstance(other, cst.Call) and isinstance(other.func, cst.Name):
            if self.ctx.resolve(other.func) != kind:
                return None
        elif not (kind == "tuple" and self.ctx.value(other).kind is Kind.SHAPE):
            return None
        for element in display.elements:
            value = self.ctx.value(element.value)
            if value.tensorish and not value.numpy:
                return value, kind
        return None

    def _check_test(self, test: cst.BaseExpression, anchor: cst.CSTNode, statement: str) -> None:
        self._mark(test)
        for operand in truth_tested(test, self.ctx.while_compiling):
            value = self.ctx.value(operand)
            if value.tensorish:
                confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
                subject = "a NumPy value, which Dynamo traces as a tensor," if value.numpy else "a tensor"
                condition = self._python_condition(test, operand)
                training = training_arm(self.ctx, anchor) if not condition else None
                if condition or (training and self.ctx.compiled_for_eval()):
                    report_conditional(self, anchor, condition or training, "GB0170", statement=statement,
                                       subject=subject)
                    return
                also = ""
                if training:  # LayerDrop: a module compiled for training breaks in every training call
                    confidence = Confidence.LIKELY
                    also = f" in training calls (`{training}`; a module compiled in eval mode does not)"
                self.report(anchor, confidence=confidence, says="GB0170", statement=statement, subject=subject,
                            help=NUMPY_HELP if value.numpy else None, also=also)
                return  # Dynamo breaks at the first one; one finding per test

    def _python_condition(self, test: cst.BaseExpression, operand: cst.BaseExpression) -> str | None:
        """`x.dtype == torch.float16 and not torch.isfinite(x).all()`: the tensor operand is
        evaluated only when the Python tests before it in the `and` chain hold, and Dynamo knows
        them while tracing (a dtype, `self.training`, a setting). Their source, else None."""
        chain: list[cst.BaseExpression] = []

        def flatten(expr: cst.BaseExpression) -> None:
            if isinstance(expr, cst.BooleanOperation) and isinstance(expr.operator, cst.And):
                flatten(expr.left)
                flatten(expr.right)
            else:
                chain.append(expr)

        flatten(test)
        del flatten  # it refers to itself: a cycle holding `chain`'s nodes for the collector
        index = next((i for i, part in enumerate(chain) if _holds(part, operand)), 0)
        before = chain[:index]
        if not before or any(self.ctx.value(part).tensorish or not _decided_while_tracing(part) for part in before):
            return None
        return " and ".join(cst.Module([]).code_for_node(part) for part in before)

    def _mark(self, expr: cst.BaseExpression) -> None:
        self._tests.add(expr)
        if isinstance(expr, cst.BooleanOperation):
            self._mark(expr.left)
            self._mark(expr.right)
        elif isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
            self._mark(expr.expression)
