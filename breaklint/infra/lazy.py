"""libcst nodes made only as far as they are read.

The pre-pass keeps expressions as source text; the resolvers mostly read the spine of one
(`nn.Linear(dim, bias=False)`: that it is a call, of what, with which arguments), rarely more. So
`parse_fragment` builds `a.b.c` directly, reads the spine of a postfix chain from the text
(`self.qkv(x).reshape(B, N, 3)`: a call of an attribute of a call; the `ast` parses it only when
an argument is read), and otherwise keeps a compact shape of the expression from the stdlib
`ast` (ten times cheaper than libcst): calls (their `func` and `args`),
attributes, subscripts, binary operations and conditional expressions become `LazyNode`s whose
parts come from the shape, a list, tuple or comprehension also knows the calls inside it
(`calls_inside`: `[Block(d) for _ in range(n)]`), and any other node whose libcst class the `ast`
kind decides answers `isinstance` alone; a conditional expression also knows its test as written
(`written_test`). Anything else is read from the real libcst tree, parsed on first need. Every
answer is the one the parsed tree gives (tests/test_lazy_nodes.py).
"""

from __future__ import annotations

import ast
import keyword
import re
import warnings
from functools import lru_cache
from typing import Callable, Iterator

import libcst as cst

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


def parse_fragment(text: str, on_parse: Callable[[], None] | None = None) -> cst.BaseExpression:
    """The libcst expression for `text` (an expression as written, without its parentheses).
    `on_parse` hears when libcst parses it (the work count)."""
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

    chain = _chain(text)
    if chain is not None:  # `self.qkv(x).reshape(B, N, 3)`: its spine from the text, the rest when read
        made: list[object] = []

        def whole() -> object:
            if not made:
                made.append(_ast_spine(text, root))
            return made[0]

        return _chain_node(chain[0], chain[1], len(chain[1]), whole)  # type: ignore[return-value]
    return _ast_spine(text, root)  # type: ignore[return-value]


def _ast_spine(text: str, root: Callable[[], cst.BaseExpression]) -> object:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            source = f"({text})"
            tree = ast.parse(source, mode="eval").body
        shape = _shape(tree, source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return root()
    del tree  # the shape is what stays: an ast tree costs several times more
    return _spine(shape, root)


# A postfix chain as written: a name, then `.name`, `(...)` and `[...]` with nothing between
# them (no space, no operator). Inside brackets: strings (an f-string gives up: from 3.12 it may
# nest its own quotes) and comments are skipped whole.
_SPECIAL = re.compile(r"""[()\[\]{}#'"]""")
_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_STRING_END = {q: re.compile(r"(?:\\.|[^\\])*?" + re.escape(q), re.S) for q in ("'", '"', "'''", '"""')}
_PREFIX = re.compile(r"[A-Za-z]*$")


def _chain(text: str) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """(the head name, each trailer as ("attr", name), ("call", "") or ("sub", "")), or None
    when `text` is not such a chain (or this reading is not sure of it)."""
    if not text.isascii():  # the ast's names are NFKC-normalized: read those from it
        return None
    head = _IDENTIFIER.match(text)
    if head is None or keyword.iskeyword(head.group()) or not head.group().isidentifier():
        return None
    trailers: list[tuple[str, str]] = []
    at, end = head.end(), len(text)
    while at < end:
        char = text[at]
        if char == ".":
            name = _IDENTIFIER.match(text, at + 1)
            if name is None or keyword.iskeyword(name.group()) or not name.group().isidentifier():
                return None
            trailers.append(("attr", name.group()))
            at = name.end()
        elif char == "(" or char == "[":
            closed = _group_end(text, at)
            if closed is None:
                return None
            trailers.append(("call" if char == "(" else "sub", ""))
            at = closed
        else:
            return None
    if all(kind == "attr" for kind, _ in trailers):
        return None  # a dotted name (_dotted_node)
    return head.group(), tuple(trailers)


def _group_end(text: str, at: int) -> int | None:
    """Where the bracket opened at `at` closes (the index after it), or None when not sure."""
    depth = 0
    while True:
        found = _SPECIAL.search(text, at)
        if found is None:
            return None
        char, at = found.group(), found.end()
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return at
        elif char == "#":
            newline = text.find("\n", at)
            if newline < 0:
                return None
            at = newline + 1
        else:  # a string: its prefix letters are just before it
            if "f" in _PREFIX.search(text, 0, found.start()).group().lower():  # type: ignore[union-attr]
                return None
            quote = text[found.start():found.start() + 3]
            quote = quote if quote in ("'''", '"""') else char
            closed = _STRING_END[quote].match(text, found.start() + len(quote))
            if closed is None:
                return None
            at = closed.end()


def _chain_node(head: str, trailers: tuple[tuple[str, str], ...], upto: int, whole: Callable[[], object]) -> object:
    """The node of the chain's first `upto` trailers: its spine from the text; anything else
    (a call's arguments, a subscript's slice) from the same part of `whole`, the `ast` spine."""
    if upto == 0:
        return cst.Name(head)
    kind, name = trailers[upto - 1]
    outer = len(trailers) - upto  # how many parts `whole` is above this one

    def same() -> object:
        node = whole()
        for _ in range(outer):
            node = node.func if isinstance(node, cst.Call) else node.value  # type: ignore[attr-defined]
        return node

    inner = lambda: _chain_node(head, trailers, upto - 1, whole)  # noqa: E731
    real = lambda: real_node(same())  # noqa: E731
    if kind == "attr":
        return LazyNode(cst.Attribute, {"value": inner, "attr": lambda: cst.Name(name)}, real)  # type: ignore[arg-type]
    if kind == "call":
        return LazyNode(cst.Call, {"func": inner, "args": lambda: same().args}, real)  # type: ignore[arg-type, attr-defined]
    return LazyNode(cst.Subscript, {"value": inner}, real)  # type: ignore[arg-type]


def _parse(text: str) -> cst.BaseExpression:
    return cst.parse_expression(f"({text})")


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
Shape = tuple | None  # type: ignore[type-arg]


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
