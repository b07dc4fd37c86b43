"""libcst nodes made only as far as they are read.

The pre-pass keeps expressions as source text; the resolvers mostly read the spine of one
(`nn.Linear(dim, bias=False)`: that it is a call, of what, with which arguments), rarely more. So
`parse_fragment` builds `a.b.c` directly, and the callee of `a.b(...)` (its arguments parsed when
first read), and otherwise keeps a compact shape of the expression
from the stdlib `ast` (ten times cheaper than libcst): calls (their `func` and `args`),
attributes, subscripts, binary operations and conditional expressions become `LazyNode`s whose
parts come from the shape, a list, tuple or comprehension also knows the calls inside it
(`calls_inside`: `[Block(d) for _ in range(n)]`), and any other node whose libcst class the `ast`
kind decides answers `isinstance` alone; a conditional expression also knows its test as written
(`written_test`). Anything else is read from the real libcst tree, parsed on first need. Every
answer is the one the parsed tree gives (tests/test_lazy_nodes.py).

Not done: reading a postfix chain's spine from the text (`self.qkv(x).reshape(B, N, 3)`, c6d5c22,
reverted). It saved about 0.05 s of timm's 0.55 s of regions, but its nodes hold more than the
shapes: transformers' regions process peaked at 594 MB with it against 574 MB without (issue
#13 allows 600).
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from keyword import iskeyword
from typing import Callable, Iterator, Optional

import libcst as cst

from breaklint.infra.quiet_ast import parse_expression
from breaklint.infra.recursion import parse_safely

_OWN = frozenset({"_kind", "_known", "_real", "_resolved", "_on_read"})
_CALLS = "calls inside"  # the key of a sequence's calls in LazyNode._known: no libcst field is named so
_TEST = "test source"  # the key of a conditional expression's test, as written


class LazyNode:
    """Stands in for a libcst node: what is known without parsing (`known`) is answered from
    it, anything else is read from the real node (`real`, made once). It passes `isinstance`
    checks for the node's class. `on_read` hears of every read that needs the real node."""

    def __init__(self, kind: type, known: dict[str, Callable[[], object]], real: Callable[[], cst.CSTNode],
                 on_read: Callable[[], None] | None = None) -> None:
        self._kind = kind
        self._known = known
        self._real = real
        self._resolved: cst.CSTNode | None = None
        self._on_read = on_read

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # isinstance(node, cst.Call) holds
        return self._kind

    def resolve(self) -> cst.CSTNode:
        if self._on_read is not None:
            self._on_read()
        if self._resolved is None:
            self._resolved = self._real()
        return self._resolved

    def __getattr__(self, name: str) -> object:
        if name in _OWN:
            raise AttributeError(name)
        maker = self._known.get(name)
        if maker is None:
            return getattr(self.resolve(), name)
        value = maker()
        setattr(self, name, value)  # the next read finds it without __getattr__
        return value

    def __repr__(self) -> str:
        return f"<LazyNode {self._kind.__name__}>"


def real_node(node: object) -> object:
    """The libcst node behind a LazyNode (anything else is returned as is)."""
    return node.resolve() if type(node) is LazyNode else node


def parse_fragment(text: str, on_parse: Callable[[], None] | None = None,
                   on_shape: Callable[[], None] | None = None) -> cst.BaseExpression:
    """The libcst expression for `text` (an expression as written, without its parentheses).
    `on_parse` hears when libcst parses it, `on_shape` when the ast does (the work counts)."""
    dotted = _dotted_node(text)
    if dotted is not None:
        return dotted
    parsed: list[cst.BaseExpression] = []

    def root() -> cst.BaseExpression:
        if not parsed:
            if on_parse is not None:
                on_parse()
            parsed.append(parse_safely(_parse, text))
        return parsed[0]

    callee = _callee(text)
    if callee is not None:  # its arguments from the ast when first read (most readers ask only what is called)
        return LazyNode(cst.Call, {"func": lambda: callee,
                                   "args": lambda: getattr(_shaped(text, root, on_shape), "args")},
                        root)  # type: ignore[return-value]
    return _shaped(text, root, on_shape)  # type: ignore[return-value]


def _shaped(text: str, root: Callable[[], cst.BaseExpression], on_shape: Callable[[], None] | None) -> object:
    """The node of `text` from the shape the `ast` gives it (see _spine)."""
    if on_shape is not None:
        on_shape()
    try:
        source = f"({text})"
        tree = parse_expression(source)
        shape = _shape(tree, source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return root()
    del tree  # the shape is what stays: an ast tree costs several times more
    return _spine(shape, root)


def _parse(text: str) -> cst.BaseExpression:
    return cst.parse_expression(f"({text})")


def _callee(text: str) -> cst.BaseExpression | None:
    """The callee of a text that is one call of a dotted name, `nn.Linear(dim, 3 * dim)` (most
    of the values an attribute is assigned that the walk reads: a constructor call), built
    without parsing; None for any other text. The call is the whole text where its `(` closes
    at the end: the brackets between never close more than they opened (a fragment is valid
    Python, so they pair up), `f(a)(b)`, `f(a) + g(b)` and `f(a).g(b)` fail it. A quote or a
    comment could hold a bracket: those go to the ast."""
    opened = text.find("(")
    if opened <= 0 or text[-1] != ")" or _QUOTE_OR_COMMENT.search(text) is not None:
        return None
    head = text[:opened]
    if any(iskeyword(part) for part in head.split(".")):  # `not(x)` is no call
        return None
    depth = 0
    for bracket in _BRACKETS.findall(text, opened + 1, len(text) - 1):
        depth += 1 if bracket in "([{" else -1
        if depth < 0:
            return None
    return _dotted_node(head) if depth == 0 else None  # (None too where the head is no dotted name)


_QUOTE_OR_COMMENT = re.compile(r"[\"'#]")
_BRACKETS = re.compile(r"[()\[\]{}]")


def _dotted_node(text: str) -> cst.BaseExpression | None:
    parts = text.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    expr: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        expr = cst.Attribute(value=expr, attr=cst.Name(part))
    return expr


# What the ast says of an expression's spine, compactly (kept with each fragment until read):
# ("name", id), ("attr", value, attr), ("call", func, ((star, keyword, value), ...)),
# ("sub", value), ("bin", left, right), ("ifexp", body, orelse, the test as written), ("seq", libcst
# class, the calls inside it or None), ("kind", libcst class), or None (read it from the parsed tree).
Shape = Optional[tuple]  # type: ignore[type-arg]


def _shape(node: ast.expr, source: str) -> Shape:
    if isinstance(node, ast.Name):
        return ("name", node.id)
    if isinstance(node, ast.Attribute):
        return ("attr", _shape(node.value, source), node.attr)
    if isinstance(node, ast.Call):
        return ("call", _shape(node.func, source), _arguments(node, source))
    if isinstance(node, ast.Subscript):
        return ("sub", _shape(node.value, source))
    if isinstance(node, ast.BinOp):  # both group `a + b + c` (and `a ** b ** c`) alike
        return ("bin", _shape(node.left, source), _shape(node.right, source))
    if isinstance(node, ast.IfExp):
        # its test as written: the settings it tests are read from it with `ast` (conditions.py)
        return ("ifexp", _shape(node.body, source), _shape(node.orelse, source), _segment(source, node.test))
    if isinstance(node, (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp)):
        return ("seq", _kinds()[0][type(node)], _calls_in(node, source))
    if isinstance(node, ast.Constant):
        if node.value is None or isinstance(node.value, bool):
            return ("name", repr(node.value))
        kind = _kinds()[1].get(type(node.value))  # a str or bytes may be an implicit concatenation
    else:
        kind = _kinds()[0].get(type(node))
    return None if kind is None else ("kind", kind)


def _segment(source: str, node: ast.expr) -> str:
    """ast.get_source_segment, without splitting the source into lines where it is one line of
    ASCII (offsets are UTF-8 bytes): most fragments."""
    if node.lineno == node.end_lineno == 1 and source.isascii():
        return source[node.col_offset:node.end_col_offset]
    return ast.get_source_segment(source, node) or ""


def _calls_in(node: ast.expr, source: str) -> tuple[Shape, ...] | None:
    """The shapes of the calls under `node` that are not inside another call, in source order
    (libcst's content order: the calls are disjoint, so their starts order them); None where the
    `ast`'s positions are not the source's (an f-string's parts)."""
    found: list[ast.Call] = []
    stack: list[ast.AST] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Call):
            found.append(current)
        elif isinstance(current, ast.JoinedStr):
            return None
        else:
            stack.extend(ast.iter_child_nodes(current))
    found.sort(key=lambda call: (call.lineno, call.col_offset))
    return tuple(_shape(call, source) for call in found)


def calls_inside(node: object, find: Callable[[cst.CSTNode], Iterator[cst.Call]]) -> tuple[object, ...]:
    """The calls in `node` outside any other call, as `find` (a search of the real tree) gives
    them; from the shape, without parsing, where the node is a sequence's LazyNode."""
    if type(node) is LazyNode:
        known = node._known.get(_CALLS)
        if known is not None:
            return known()(find)  # type: ignore[operator, no-any-return]
    return tuple(find(node))  # type: ignore[arg-type]


def written_test(node: object) -> str | None:
    """The test of a conditional expression as written, from its shape (None where it has none:
    read `node.test` then)."""
    if type(node) is LazyNode:
        known = node._known.get(_TEST)
        if known is not None:
            return known()  # type: ignore[no-any-return]
    return None


def _sequence(kind: type, calls: tuple[Shape, ...] | None, real: Callable[[], object]) -> LazyNode:
    if calls is None:
        return LazyNode(kind, {}, real)  # type: ignore[arg-type]
    made: list[tuple[object, ...]] = []  # once: the same nodes for every reader (rules match by identity)

    def inside(find: Callable[[cst.CSTNode], Iterator[cst.Call]]) -> tuple[object, ...]:
        if not made:
            found: list[tuple[cst.Call, ...]] = []

            def real_calls() -> tuple[cst.Call, ...]:
                if not found:
                    found.append(tuple(find(real())))  # type: ignore[arg-type]
                return found[0]

            made.append(tuple(_spine(shape, lambda at=at: real_calls()[at]) for at, shape in enumerate(calls)))
        return made[0]

    return LazyNode(kind, {_CALLS: lambda: inside}, real)  # type: ignore[arg-type]


def _arguments(call: ast.Call, source: str) -> tuple[tuple[str, str | None, Shape], ...]:
    """A call's arguments in libcst's order (the source's: ast keeps positional and keyword
    arguments apart), each as (star, keyword, value)."""
    written: list[tuple[ast.AST, str, str | None, ast.expr]] = [
        (arg, "*", None, arg.value) if isinstance(arg, ast.Starred) else (arg, "", None, arg) for arg in call.args]
    written += [(kw, "**" if kw.arg is None else "", kw.arg, kw.value) for kw in call.keywords]
    written.sort(key=lambda item: (item[0].lineno, item[0].col_offset))
    return tuple((star, keyword, _shape(value, source)) for _, star, keyword, value in written)


def _spine(shape: Shape, real: Callable[[], object]) -> object:
    """The node of `shape` as libcst has it: built for names; lazy for calls (their `func` and
    `args`), attributes, subscripts, binary operations and conditional expressions (their parts
    built the same way); for the other kinds whose libcst class the ast kind decides, a
    LazyNode that answers `isinstance` alone; else read from the parsed tree."""
    if shape is None:
        return real()
    what = shape[0]
    if what == "name":
        return cst.Name(shape[1])
    if what == "kind":
        return LazyNode(shape[1], {}, real)  # type: ignore[arg-type]
    if what == "seq":
        return _sequence(shape[1], shape[2], real)
    if what == "attr":
        return LazyNode(cst.Attribute, {"value": _part(shape[1], real, "value"),
                                        "attr": lambda: cst.Name(shape[2])}, real)  # type: ignore[arg-type]
    if what == "call":
        return LazyNode(cst.Call, {"func": _part(shape[1], real, "func"),
                                   "args": lambda: _args(shape[2], real)}, real)  # type: ignore[arg-type]
    if what == "sub":
        return LazyNode(cst.Subscript, {"value": _part(shape[1], real, "value")}, real)  # type: ignore[arg-type]
    if what == "bin":
        return LazyNode(cst.BinaryOperation, {"left": _part(shape[1], real, "left"),
                                              "right": _part(shape[2], real, "right")}, real)  # type: ignore[arg-type]
    test = shape[3]
    return LazyNode(cst.IfExp, {"body": _part(shape[1], real, "body"), "orelse": _part(shape[2], real, "orelse"),
                                _TEST: lambda: test}, real)  # type: ignore[arg-type]


def _part(shape: Shape, real: Callable[[], object], field: str) -> Callable[[], object]:
    return lambda: _spine(shape, lambda: getattr(real(), field))


def _args(written: tuple[tuple[str, str | None, Shape], ...], real: Callable[[], object]) -> tuple[object, ...]:
    def lazy_arg(at: int, star: str, keyword: str | None, value: Shape) -> LazyNode:
        real_arg = lambda: getattr(real(), "args")[at]  # noqa: E731
        return LazyNode(cst.Arg, {"value": _part(value, real_arg, "value"),
                                  "keyword": lambda: None if keyword is None else cst.Name(keyword),
                                  "star": lambda: star}, real_arg)  # type: ignore[arg-type]

    return tuple(lazy_arg(at, *arg) for at, arg in enumerate(written))


@lru_cache(maxsize=1)
def _kinds() -> tuple[dict[type, type], dict[type, type]]:
    """The ast kinds whose libcst class is known without parsing (the spine's own kinds aside),
    and the same for constants by their Python type. Made on first use: modules read nothing of
    libcst while they are imported (infra/deferred.py)."""
    kinds: dict[type, type] = {
        ast.BoolOp: cst.BooleanOperation, ast.Compare: cst.Comparison,
        ast.UnaryOp: cst.UnaryOperation, ast.Tuple: cst.Tuple, ast.List: cst.List, ast.Set: cst.Set,
        ast.Dict: cst.Dict, ast.Lambda: cst.Lambda, ast.ListComp: cst.ListComp,
        ast.SetComp: cst.SetComp, ast.DictComp: cst.DictComp, ast.GeneratorExp: cst.GeneratorExp,
        ast.Await: cst.Await, ast.NamedExpr: cst.NamedExpr, ast.Slice: cst.Slice,
    }
    constants: dict[type, type] = {int: cst.Integer, float: cst.Float, complex: cst.Imaginary,
                                   type(...): cst.Ellipsis}
    return kinds, constants
