"""The settings a test decides on (`summary.Guard`) and the literals it compares with, read
from the stdlib `ast` — once, for the indexer (builder.py) and for the analysis of region code
(libcst expressions are read through their source text: `cst_guards_of`, `cst_literal`)."""

from __future__ import annotations

import ast
import io
import tokenize
from typing import TYPE_CHECKING, Callable

from breaklint.index.summary import Guard
from breaklint.infra.quiet_ast import parse_expression

if TYPE_CHECKING:
    import libcst as cst

NO_LITERAL = object()  # what `literal` gives for anything that is not a literal
Text = Callable[[ast.expr], str]  # an expression's source, as written
_COMPARISONS = {ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}


def guards_of(test: ast.expr, holds: bool, text: Text) -> list[Guard]:
    """The guards a test sets on the block that runs when it is `holds`: a dotted chain's truth,
    or its comparison with a literal; `not`, `and` in a body and `or` in an `else` are taken
    apart. Other tests set none."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return guards_of(test.operand, not holds, text)
    if isinstance(test, ast.BoolOp):
        if isinstance(test.op, ast.And) == holds:  # `a and b` true / `a or b` false: both
            return [guard for value in test.values for guard in guards_of(value, holds, text)]
        return []
    if isinstance(test, ast.Compare):
        if len(test.ops) != 1:
            return []
        op = _COMPARISONS.get(type(test.ops[0]))
        subject = dotted(test.left)
        value = literal(test.comparators[0], text)
        if op is None or subject is None or "." not in subject or value is NO_LITERAL:
            return []
        return [Guard(subject, op, value, holds)]
    subject = dotted(test)
    return [Guard(subject, "truthy", None, holds)] if subject is not None and "." in subject else []


def literal(node: ast.expr, text: Text) -> object:
    """The value of a literal (a bool, None, a number, one string, or a tuple/list/set of those),
    else NO_LITERAL."""
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, (str, bytes)):
            return NO_LITERAL if is_concatenation(text(node)) else value
        if isinstance(value, (int, float)) and not isinstance(value, complex):
            return value
        return NO_LITERAL
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = tuple(literal(e, text) for e in node.elts if not isinstance(e, ast.Starred))
        if len(items) == len(node.elts) and NO_LITERAL not in items:
            return items
    return NO_LITERAL


def dotted(node: ast.AST) -> str | None:
    kind = type(node)  # (ast's classes are not subclassed: `is` is exact and cheaper)
    if kind is ast.Name:
        return node.id  # type: ignore[attr-defined]
    if kind is not ast.Attribute:
        return None
    parts: list[str] = []
    while kind is ast.Attribute:
        parts.append(node.attr)  # type: ignore[attr-defined]
        node = node.value  # type: ignore[attr-defined]
        kind = type(node)
    if kind is not ast.Name:
        return None
    parts.append(node.id)  # type: ignore[attr-defined]
    parts.reverse()
    return ".".join(parts)


def is_concatenation(text: str) -> bool:
    """Whether a string constant's source is several literals (`"a" "b"`): not one setting."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                  if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.COMMENT)]
    except (tokenize.TokenError, SyntaxError):
        return True
    return len(tokens) != 1


# --- libcst expressions, read through their source -------------------------------------------
def cst_guards_of(test: cst.BaseExpression, holds: bool) -> list[Guard]:
    found = _as_ast(test)
    return guards_of(found[0], holds, found[1]) if found is not None else []


def text_guards_of(test: str, holds: bool) -> list[Guard]:
    """cst_guards_of for a test given as written (a fragment's, infra/lazy.written_test): no
    libcst node is made or printed."""
    found = _text_as_ast(test)
    return guards_of(found[0], holds, found[1]) if found is not None else []


def cst_literal(expr: cst.BaseExpression) -> object:
    found = _as_ast(expr)
    return literal(found[0], found[1]) if found is not None else NO_LITERAL


def _as_ast(expr: cst.BaseExpression) -> tuple[ast.expr, Text] | None:
    import libcst as cst

    return _text_as_ast(cst.Module(body=[]).code_for_node(expr))


def _text_as_ast(code: str) -> tuple[ast.expr, Text] | None:
    source = "(\n" + code + "\n)"
    try:
        body = parse_expression(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return body, lambda node: ast.get_source_segment(source, node) or ""
