"""Small syntax helpers shared by rules."""

from __future__ import annotations

from typing import Callable

import libcst as cst


def method_call(node: cst.Call, names: frozenset[str] | set[str]) -> cst.BaseExpression | None:
    """The receiver of `receiver.name(...)` when `name` is one of `names`."""
    func = node.func
    if func.__class__ is cst.Attribute and func.attr.value in names:  # (not isinstance: libcst's ABCs are slow to ask)
        return func.value  # type: ignore[attr-defined]
    return None


# Functions Dynamo answers with a constant while it traces.
TRUE_WHILE_COMPILING = frozenset(
    {"torch.compiler.is_compiling", "torch.compiler.is_dynamo_compiling", "torch._dynamo.is_compiling",
     "torch._dynamo.external_utils.is_compiling", "torch._utils.is_compiling"}
)
# `torch._C._get_tracing_state()` is set only by torch.jit.trace (and so ONNX export): None while
# Dynamo traces (torch 2.13, testdata/rules/BL106/good.py).
FALSE_WHILE_COMPILING = frozenset({"torch.jit.is_scripting", "torch.jit.is_tracing", "torch._C._get_tracing_state"})
# Libraries' own wrappers of those, known by their name: torchvision's `_is_tracing()` returns
# `torch._C._get_tracing_state()`, detectron2's `torch.jit.is_tracing()`.
FALSE_WHILE_COMPILING_WRAPPERS = frozenset({"_is_tracing"})
# Libraries' own wrappers of `torch.compiler.is_compiling()`, known by their name wherever they
# are imported from (transformers' `is_torchdynamo_compiling`, diffusers' `is_torch_dynamo_compiling`,
# kornia's `kornia.core.utils.is_compiling`).
TRUE_WHILE_COMPILING_WRAPPERS = frozenset({"is_torchdynamo_compiling", "is_torch_dynamo_compiling",
                                           "is_dynamo_compiling", "is_compiling"})


def called_while_compiling(name: str | None) -> bool | None:
    """What a call of the function `name` (qualified, no arguments) gives while Dynamo traces:
    True, False, or None when it is not one of the known tests. The one table both indexers read
    (builder.py on ast, value_while_compiling on libcst)."""
    last = (name or "").rpartition(".")[2]
    if name in TRUE_WHILE_COMPILING or last in TRUE_WHILE_COMPILING_WRAPPERS:
        return True
    if name in FALSE_WHILE_COMPILING or last in FALSE_WHILE_COMPILING_WRAPPERS:
        return False
    return None


# A local name bound once to a known test: `is_tracing = torch.jit.is_tracing() or is_compiling()`.
LocalTest = Callable[[str], "cst.BaseExpression | None"]
# What the function's values make of a call test Dynamo answers while tracing (`isinstance` of a
# known tensor: FileContext.type_answer), None when they do not decide it.
TypeAnswer = Callable[["cst.Call"], "bool | None"]


def value_while_compiling(test: cst.BaseExpression, resolve: Callable[[cst.BaseExpression], str | None],
                          local: LocalTest | None = None, typed: TypeAnswer | None = None) -> bool | None:
    """True/False when Dynamo knows the test's value while tracing (`torch.compiler.is_compiling()`,
    `not ...`, `and`/`or` of such tests; with `typed`, `isinstance` of a known tensor), else None.
    Code under the branch Dynamo does not take is never traced."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = value_while_compiling(test.expression, resolve, local, typed)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        left = value_while_compiling(test.left, resolve, local, typed)
        right = value_while_compiling(test.right, resolve, local, typed)
        decisive = isinstance(test.operator, cst.Or)  # True decides an `or`, False an `and`
        if decisive in (left, right):
            return decisive
        return None if left is None or right is None else not decisive
    if isinstance(test, cst.Call) and not test.args:
        known = called_while_compiling(resolve(test.func))
        if known is not None:
            return known
    if isinstance(test, cst.Call) and typed is not None:
        return typed(test)
    if isinstance(test, cst.Name) and local is not None:
        bound = local(test.value)
        if bound is not None:
            return value_while_compiling(bound, resolve)  # one level: no chains of locals
    return None


def untraced_blocks(node: cst.If | cst.IndentedBlock, resolve: Callable[[cst.BaseExpression], str | None],
                    local: LocalTest | None = None, typed: TypeAnswer | None = None) -> list[cst.CSTNode]:
    """The parts of an `if` that Dynamo never traces: the body of `if not is_compiling():`, the
    `else` of `if is_compiling():`; and of a block, the statements after an `if` that always
    leaves it while Dynamo traces (`if not self.training or is_compiling(): return x`, then the
    eager-only code)."""
    if isinstance(node, cst.IndentedBlock):
        for at, statement in enumerate(node.body):
            if isinstance(statement, cst.If) and leaves(statement, resolve, local, typed):
                return list(node.body[at + 1:])
        return []
    known = value_while_compiling(node.test, resolve, local, typed)
    if known is False:
        return [node.body]
    if known is True and node.orelse is not None:
        return [node.orelse]
    return []


def leaves(statement: cst.CSTNode, resolve: Callable[[cst.BaseExpression], str | None],
           local: LocalTest | None = None, typed: TypeAnswer | None = None) -> bool:
    """Whether a statement always leaves its block while Dynamo traces: a `return`, `raise`,
    `continue` or `break`, or an `if` whose arms that Dynamo takes all do (`if not self.training
    or is_compiling(): return x`; builder._leaves is its twin on ast)."""
    if isinstance(statement, cst.SimpleStatementLine):
        return _line_leaves(statement)
    if not isinstance(statement, cst.If):
        return False
    known = value_while_compiling(statement.test, resolve, local, typed)
    arms = [statement.body] if known is True else [statement.orelse] if known is False \
        else [statement.body, statement.orelse]
    return all(_arm_leaves(arm, resolve, local, typed) for arm in arms)


def _arm_leaves(arm: cst.CSTNode | None, resolve: Callable[[cst.BaseExpression], str | None],
                local: LocalTest | None, typed: TypeAnswer | None) -> bool:
    if isinstance(arm, cst.Else):
        arm = arm.body
    if isinstance(arm, cst.If):  # elif
        return leaves(arm, resolve, local, typed)
    if isinstance(arm, cst.SimpleStatementSuite):  # `if c: return x` on one line
        return _line_leaves(arm)
    if isinstance(arm, cst.IndentedBlock):
        return any(leaves(statement, resolve, local, typed) for statement in arm.body)
    return False


def _line_leaves(line: cst.SimpleStatementLine | cst.SimpleStatementSuite) -> bool:
    return any(isinstance(small, (cst.Return, cst.Raise, cst.Continue, cst.Break)) for small in line.body)


# torch.compile modes that record CUDA graphs.
CUDAGRAPH_MODES = frozenset({"reduce-overhead", "max-autotune"})


def compile_mode(node: cst.CSTNode) -> str | None:
    """The `mode=` string of a `torch.compile(...)` call or `@torch.compile(...)` decorator."""
    if isinstance(node, cst.Decorator):
        node = node.decorator
    if not isinstance(node, cst.Call):
        return None
    calls = [node] + ([node.func] if isinstance(node.func, cst.Call) else [])  # torch.compile(mode=...)(fn)
    for call in calls:
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "mode" and isinstance(arg.value, cst.SimpleString):
                value = arg.value.evaluated_value
                return value if isinstance(value, str) else None
    return None


# Grad-mode switches: a call under one of these (a `with` item or a decorator) runs with
# gradients off; `set_grad_enabled` only with a literal False.
NO_GRAD = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
                     "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.inference_mode"})
SET_GRAD = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"})
