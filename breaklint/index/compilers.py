"""Names a module binds to something that compiles what it is given: a compile helper.

Training scripts seldom call `torch.compile` where they use it. They write

    compiler = torch.compile if args.compile else (lambda fn: fn)   # an alias
    dynamic_compile = functools.partial(torch.compile, dynamic=True)

    def maybe_compile(fn):                                          # a wrapper
        return torch.compile(fn) if USE_COMPILE else fn

    def compile_with(**options):                                    # a factory
        def wrap(fn):
            return torch.compile(fn, **options)
        return wrap

and then `@maybe_compile`, `@compile_with(mode="max-autotune")`, `g = dynamic_compile(f)`:
Dynamo compiles `f` as if `torch.compile(f)` were written there. A trainer class may have one as
a method (`def maybe_compile(self, fn)`), which its methods call as `self.maybe_compile(self.step)`. The pre-pass (builder.py)
learns these helpers from the module's own definitions, in source order, and records each use
as a compile site. The summary exports the module-level ones; a module that imports one
(`from utils import maybe_compile`) is summarized again with it known, once every file's facts
are in (engine.py, `_seed_imported_helpers`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Optional

from breaklint.index.project import COMPILE_NAMES

Resolve = Callable[[ast.expr], Optional[str]]  # a name's qualified name, by the module's imports


@dataclass(frozen=True)
class Compiler:
    """How a name compiles: `kind` "alias" (its call compiles its argument at `position`, as
    `torch.compile` does), "wrapper" (a def that compiles its parameter at `position`) or
    "factory" (a def whose call returns a wrapper: `helper(...)(fn)`). `options`: the text whose
    keywords are the compile options, as a compile site's text holds them (summary.SiteSummary):
    the `partial(...)` or the inner `torch.compile(...)` call; "" where the use's own text holds
    them (a factory that passes its `**options` on)."""

    kind: str
    position: int = 0
    options: str = ""


def alias_of(value: ast.expr, resolve: Resolve, text: Callable[[ast.expr], str]) -> Optional[Compiler]:
    """What `name = value` makes of `name` when `value` is a compile function: `torch.compile`
    itself, `functools.partial(torch.compile, ...)`, or either in one arm of `a if test else b`
    (compiled when the test holds; Dynamo compiles what the default run compiles)."""
    if isinstance(value, ast.IfExp):
        for arm in (value.body, value.orelse):
            found = alias_of(arm, resolve, text)
            if found is not None:
                return found
        return None
    if resolve(value) in COMPILE_NAMES:
        return Compiler("alias")
    if isinstance(value, ast.Call) and len(value.args) == 1 and resolve(value.func) == "functools.partial" \
            and resolve(value.args[0]) in COMPILE_NAMES:
        return Compiler("alias", 0, text(value))
    return None


def returned_names(body: list[ast.stmt]) -> set[str]:
    """The names the function returns by name in its own body (`return wrap`), outside nested
    defs and classes."""
    names: set[str] = set()
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Name):
            names.add(node.value.id)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.expr)):
            stack.extend(ast.iter_child_nodes(node))
    return names


def compiled_argument(call: ast.Call, compiler: Compiler) -> Optional[ast.expr]:
    """The argument a helper's call compiles: the positional one at the helper's position."""
    args = call.args
    if len(args) <= compiler.position or any(isinstance(a, ast.Starred) for a in args[:compiler.position + 1]):
        return None
    return args[compiler.position]
