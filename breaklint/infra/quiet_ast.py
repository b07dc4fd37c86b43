"""`ast.parse` without its warnings: a warning about the user's text (`"\\d"`, `1if x else y`)
is the compiler's business, not ours, and must not reach the user's terminal from a linter."""

from __future__ import annotations

import ast
import re
import warnings

# What may make `ast.parse` warn of an expression's text (DeprecationWarning or SyntaxWarning, by
# Python version): an invalid escape in a string (`"\\d"`), or a number run into the name after
# it (`1if`, `0x1for`, `1.0else`): a backslash, or a digit that starts a word and is followed by a
# letter or `_` in it (`Conv2d`'s does not start one; `0xff` and `1e5` are taken to, harmlessly).
_MAY_WARN = re.compile(r"\\|(?<!\w)\d[\w.]*[^\W\d]")


def parse_module(text: str) -> ast.Module:
    """A file's text (once per file: warnings are always caught)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


def parse_expression(source: str) -> ast.expr:
    """`ast.parse(source, mode="eval").body`. Catching warnings costs as much again as parsing a
    short expression, and the regions parse thousands (lazy.parse_fragment), so only a text that
    may warn (`_MAY_WARN`) is parsed under `warnings.catch_warnings`."""
    if _MAY_WARN.search(source) is None:
        return ast.parse(source, mode="eval").body
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source, mode="eval").body
