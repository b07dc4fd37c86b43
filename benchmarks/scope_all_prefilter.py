"""How much of a tree's function code a cheap `ast` test could leave unparsed under `--scope all`
(issue #18's item 10): the bound on a per-function prefilter, run by hand.

    python benchmarks/scope_all_prefilter.py /tmp/corpora/timm-1.0.29/timm

Under `--scope all` every function is checked, and libcst's parse of the functions plus the rules
cost about twice libcst's floor. A prefilter would parse with libcst only the functions in which
some rule could report. This counts the functions (top-level defs and methods, their nested defs
inside them) that hold any construct the value-based or call-based rules react to: a test that
is not plainly a Python value (`if x is None`, `isinstance(...)`, `self.training`, literals), a
non-literal index or slice bound, a scalar builtin or a capitalised call (a module or parameter
made), a tensor method that breaks, a write to an attribute or item, `global`, `with`, `try`,
`raise`. The test is optimistic (the real rules react to more), so the share it reports is the
least a prefilter would still parse. Parameters are maybe-tensors under `--scope all`, so a test
or an index on one is a candidate: no syntactic test can tell it from a Python value.
"""

from __future__ import annotations

import ast
import collections
import sys
from pathlib import Path
from typing import Iterator

SCALAR_CALLS = frozenset({"int", "float", "bool", "complex", "range", "print", "list", "tuple", "sorted", "any",
                          "all", "min", "max", "sum", "id", "deepcopy", "copy"})
METHODS = frozenset({"item", "tolist", "numpy", "nonzero", "unique", "append", "extend", "update",
                     "register_forward_hook", "register_buffer", "cpu", "backward", "compile"})
PYTHON_TESTS = frozenset({"isinstance", "hasattr", "callable", "getattr", "len"})


def literal(expr: ast.expr) -> bool:
    return isinstance(expr.operand if isinstance(expr, ast.UnaryOp) else expr, ast.Constant)


def plainly_python(test: ast.expr) -> bool:
    """A test no rule calls a tensor's: `x is None`, `k in d`, isinstance & co., a literal."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return plainly_python(test.operand)
    if isinstance(test, ast.BoolOp):
        return all(plainly_python(value) for value in test.values)
    if isinstance(test, ast.Compare):
        return all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in test.ops)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name):
        return test.func.id in PYTHON_TESTS
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name):
        return test.value.id == "self" and test.attr == "training"
    return literal(test)


def _index_is_literal(part: ast.expr) -> bool:
    if isinstance(part, ast.Slice):
        return all(bound is None or literal(bound) for bound in (part.lower, part.upper, part.step))
    return literal(part)


def reason(function: ast.AST) -> str | None:
    """Why some rule could report in `function` (the first construct met), else None."""
    for node in ast.walk(function):
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)) and not plainly_python(node.test):
            return "test"
        if isinstance(node, ast.Subscript):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if not all(_index_is_literal(part) for part in parts):
                return "index or bound"
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name[:1].isupper():
                return "capitalised call"
            if isinstance(func, ast.Name) and name in SCALAR_CALLS or isinstance(func, ast.Attribute) and name in METHODS:
                return "call"
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(target, (ast.Attribute, ast.Subscript)) for target in targets):
                return "write"
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.Raise, ast.With, ast.Try)):
            return type(node).__name__
    return None


def functions(body: list[ast.stmt]) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield statement
        elif isinstance(statement, ast.ClassDef):
            yield from functions(statement.body)


def main(root: Path) -> None:
    count = candidates = chars = candidate_chars = 0
    reasons: collections.Counter[str] = collections.Counter()
    for path in sorted(root.rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        lines = text.splitlines()
        for function in functions(tree.body):
            size = sum(len(line) + 1 for line in lines[function.lineno - 1:function.end_lineno])
            count, chars = count + 1, chars + size
            why = reason(function)
            if why is not None:
                candidates, candidate_chars = candidates + 1, candidate_chars + size
                reasons[why] += 1
    print(f"{root}: {count} functions, {candidates} candidates ({candidates / max(count, 1):.0%}); "
          f"{chars:,} characters, {candidate_chars:,} in candidates ({candidate_chars / max(chars, 1):.0%})")
    print("first reason met:", ", ".join(f"{why} {n}" for why, n in reasons.most_common()))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
