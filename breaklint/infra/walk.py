"""`node.visit(visitor)` for a read-only CSTVisitor, without its cost.

libcst's `visit` rebuilds every node it passes (`_visit_and_replace_children` makes a new node,
validated, even when nothing changed): most of a traversal's time. Here the same `on_visit` /
`on_leave` calls reach the same nodes in the same order — the children in the order each node
type's `_visit_and_replace_children` visits them, read once from libcst's own source — and
nothing is built. Per-attribute callbacks (`visit_Call_func`) are not made; our visitors have none.
"""

from __future__ import annotations

import typing
from typing import Callable
from functools import lru_cache

import libcst as cst

from breaklint.infra.lazy import real_node

# Nodes that hold nothing but layout: whitespace, comments, punctuation, operators (the modules
# and tokens are looked up on first use: importing breaklint does not import libcst, see deferred.py).
_TRIVIA_MODULES = frozenset({"libcst._nodes.op", "libcst._nodes.whitespace"})


@lru_cache(maxsize=None)
def _trivia_tokens() -> frozenset[type]:
    return frozenset({cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
                      cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.Asynchronous})


class Visitor:
    """What walk() needs of a visitor, with libcst's CSTVisitor dispatch (`visit_<Node>` returning
    False skips the children; `leave_<Node>`), defined without libcst."""

    def on_visit(self, node: cst.CSTNode) -> bool:
        method = getattr(self, f"visit_{type(node).__name__}", None)
        return method is None or method(node) is not False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        method = getattr(self, f"leave_{type(original_node).__name__}", None)
        if method is not None:
            method(original_node)


class OwnCode(Visitor):
    """Visits one function's own code: the functions, lambdas and classes nested in it are not
    entered (their code runs in frames of its own)."""

    def __init__(self, function: cst.FunctionDef) -> None:
        self.function = function

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.function

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


def own_code_nodes(function: cst.FunctionDef) -> typing.Iterator[cst.CSTNode]:
    """content_nodes of one function's own code, as OwnCode visits it: a nested def, lambda or
    class is met but not entered."""
    function = real_node(function)  # type: ignore[assignment]

    def enter(node: cst.CSTNode) -> bool:
        kind = type(node)
        return (node is function or kind is not cst.FunctionDef) and kind is not cst.Lambda and kind is not cst.ClassDef

    return content_nodes(function, enter)


# One if/elif/else block and the tests that decide whether it runs (annotations only: libcst
# loads on first use, deferred.py).
Arm = "tuple[cst.BaseSuite, list[tuple[cst.BaseExpression, bool]]]"
Condition = "tuple[cst.CSTNode | tuple[cst.CSTNode, cst.CSTNode], list[tuple[cst.BaseExpression, bool]]]"


class Shape(typing.NamedTuple):
    """What the rules ask of one function's own code about where a node sits, from one walk."""

    arms: list[Arm]  # if_arms
    loop_bodies: list[cst.CSTNode]  # the bodies of its for/while loops, in visit order
    while_tests: list[cst.BaseExpression]  # the tests of its while loops, in visit order
    # The code that runs only when a test gives one answer, with that test as in `arms`: the
    # right side of `a and b` (`a` held) and of `a or b` (`a` failed), the arms of `x if c else
    # y`, and the statements after `if c: return ...` (`c` failed; a run of statements is given
    # by its first and last).
    conditions: list[Condition]


def shape(function: cst.FunctionDef) -> Shape:
    """The if/elif/else blocks, loop bodies and while tests of one function's own code (nested
    defs, lambdas and classes are not entered, as OwnCode(function) visits it), from one pass of
    content_nodes: no visitor callbacks per node."""
    found: list[Arm] = []
    loops: list[cst.CSTNode] = []
    tests: list[cst.BaseExpression] = []
    conditions: list[Condition] = []
    elifs: set[int] = set()  # `elif` Ifs, already recorded with the tests of their chain
    if_, for_, while_ = cst.If, cst.For, cst.While
    boolean, if_exp, and_, block = cst.BooleanOperation, cst.IfExp, cst.And, cst.IndentedBlock
    function_def, lambda_, class_def = cst.FunctionDef, cst.Lambda, cst.ClassDef

    def enter(node: cst.CSTNode) -> bool:  # OwnCode's visit_FunctionDef, visit_Lambda, visit_ClassDef
        kind = type(node)
        return (node is function or kind is not function_def) and kind is not lambda_ and kind is not class_def

    for node in content_nodes(function, enter):
        kind = type(node)
        if kind is if_:
            if id(node) in elifs:
                continue
            earlier: list[tuple[cst.BaseExpression, bool]] = []
            branch: cst.If | cst.Else | None = node  # type: ignore[assignment]
            while isinstance(branch, cst.If):
                found.append((branch.body, [*earlier, (branch.test, True)]))
                earlier = [*earlier, (branch.test, False)]
                branch = branch.orelse
                if isinstance(branch, cst.If):
                    elifs.add(id(branch))
            if isinstance(branch, cst.Else):
                found.append((branch.body, earlier))
        elif kind is for_:
            loops.append(node.body)  # type: ignore[attr-defined]
        elif kind is while_:
            loops.append(node.body)  # type: ignore[attr-defined]
            tests.append(node.test)  # type: ignore[attr-defined]
        elif kind is boolean:
            conditions.append((node.right, [(node.left, type(node.operator) is and_)]))  # type: ignore[attr-defined]
        elif kind is if_exp:
            conditions.append((node.body, [(node.test, True)]))  # type: ignore[attr-defined]
            conditions.append((node.orelse, [(node.test, False)]))  # type: ignore[attr-defined]
        elif kind is block:
            statements = node.body  # type: ignore[attr-defined]
            for at, statement in enumerate(statements[:-1]):
                if type(statement) is if_ and statement.orelse is None and _ends_leaving(statement.body):
                    conditions.append(((statements[at + 1], statements[-1]), [(statement.test, False)]))
    return Shape(found, loops, tests, conditions)


def _ends_leaving(body: cst.BaseSuite) -> bool:
    """Whether a block's last statement leaves it: `return`, `raise`, `continue`, `break`."""
    last = body.body[-1] if body.body else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return isinstance(last, (cst.Return, cst.Raise, cst.Continue, cst.Break))


def if_arms(function: cst.FunctionDef) -> list[Arm]:
    """Every if/elif/else block of one function's own code, outer blocks first, each with the
    tests of its chain that decide whether it runs: (test, True) for its own, (test, False) for
    each earlier `if`/`elif` of the chain."""
    return shape(function).arms


@lru_cache(maxsize=None)
def child_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node type that hold children, in libcst's visit order: the field names
    its `_visit_and_replace_children` passes to `visit_*(self, "<field>", ...)`, in the order the
    compiler met them (its constants), not re-read from libcst's sources (tokenizing them cost
    every process 21 ms). tests/test_walk_fields.py holds this to the sources."""
    code = kind._visit_and_replace_children.__code__  # type: ignore[attr-defined]
    fields = getattr(kind, "__dataclass_fields__", {})
    return tuple(name for name in code.co_consts if type(name) is str and name in fields)



def is_trivia(kind: type) -> bool:
    # `import *` lives beside the operators but means something: it is content.
    return (kind.__module__ in _TRIVIA_MODULES or kind in _trivia_tokens()) and kind is not cst.ImportStar


@lru_cache(maxsize=None)
def trivia_names() -> frozenset[str]:
    """The class names of trivia nodes: a visitor with `visit_Comma` & co. needs the full walk."""
    found = set()
    stack = [cst.CSTNode]
    while stack:
        kind = stack.pop()
        stack.extend(kind.__subclasses__())
        if is_trivia(kind):
            found.add(kind.__name__)
    return frozenset(found)


@lru_cache(maxsize=None)
def content_fields(kind: type) -> tuple[str, ...]:
    """child_fields without those whose type says they can only hold trivia: two thirds of the
    nodes of a tree, skipped by visitors that look at none of them."""
    try:
        hints = typing.get_type_hints(kind)
    except Exception:  # an annotation that does not resolve: keep every field
        return child_fields(kind)
    return tuple(name for name in child_fields(kind) if name not in hints or not _only_trivia(hints[name]))


def _only_trivia(annotation: object) -> bool:
    if typing.get_origin(annotation) is not None:
        return all(_only_trivia(argument) for argument in typing.get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, cst.CSTNode):
        return is_trivia(annotation)
    return isinstance(annotation, type)  # str, None, MaybeSentinel: never walked anyway


@lru_cache(maxsize=None)
def supported() -> bool:
    """Whether child_fields can read libcst's nodes (a libcst whose nodes were written another
    way: its own visit, slower, is used instead)."""
    try:
        return {"func", "args"} <= set(child_fields(cst.Call))
    except (AttributeError, TypeError):
        return False


def walk(node: cst.CSTNode, visitor: Visitor | cst.CSTVisitor,
         fields: Callable[[type], tuple[str, ...]] = child_fields, absent: object = None,
         only: typing.Collection[type] | None = None) -> None:
    """libcst's visit order, without its per-node overhead; `fields=content_fields` leaves
    out the trivia. `absent`: libcst's marker of an optional child that is not there. `only`:
    the node types the visitor hears of (None: all); the others are walked through unheard, so
    they cannot prune. A loop over a stack, not a call per node: as deep a tree as libcst
    parsed walks without recursion."""
    if absent is None:
        absent = cst.MaybeSentinel.DEFAULT
    on_visit, on_leave = visitor.on_visit, visitor.on_leave
    backwards: dict[type, tuple[str, ...]] = {}  # each type's fields, last first (pushed, they pop first)
    stack: list[object] = [node]  # nodes to visit; _LEAVE above a heard node whose children are next
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        current = pop()
        if current is _LEAVE:
            on_leave(pop())  # type: ignore[arg-type]
            continue
        kind = type(current)
        heard = only is None or kind in only
        if heard and not on_visit(current):  # type: ignore[arg-type]
            on_leave(current)  # type: ignore[arg-type]
            continue
        own = backwards.get(kind)
        if own is None:
            own = backwards[kind] = tuple(reversed(fields(kind)))
        if heard:
            if not own:  # a leaf: nothing to wait for
                on_leave(current)  # type: ignore[arg-type]
                continue
            push(current)
            push(_LEAVE)
        for name in own:
            value = getattr(current, name)
            held = type(value)
            if held is tuple or held is list:
                extend(reversed(value))  # sequences hold nodes only
            elif value is not None and value is not absent:
                push(value)


_LEAVE = object()


def content_nodes(node: cst.CSTNode, enter: Callable[[cst.CSTNode], bool] | None = None) -> typing.Iterator[cst.CSTNode]:
    """`node` and every node under it that is not trivia, parents first: for a search that
    needs no visitor (no class made, no callbacks per node). `enter`: whether to look under a
    node (as a visitor's `visit_<Node>` returning False), when not always."""
    node = real_node(node)  # type: ignore[assignment]
    if not supported():
        stack = [node]
        while stack:
            current = stack.pop()
            if not is_trivia(type(current)):
                yield current
            if enter is None or enter(current):
                stack.extend(reversed(current.children))
        return
    absent = cst.MaybeSentinel.DEFAULT
    backwards: dict[type, tuple[str, ...]] = {}  # as in walk()
    stack = [node]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        current = pop()
        yield current
        if enter is not None and not enter(current):
            continue
        kind = type(current)
        own = backwards.get(kind)
        if own is None:
            own = backwards[kind] = tuple(reversed(content_fields(kind)))
        for name in own:
            value = getattr(current, name)
            held = type(value)
            if held is tuple or held is list:
                extend(reversed(value))
            elif value is not None and value is not absent:
                push(value)


def content_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """`node`'s children that are not trivia, in libcst's order: `node.children` without its
    cost (libcst makes that list by visiting the node, which builds a copy of it)."""
    if not supported():
        return [child for child in node.children if not is_trivia(type(child))]
    absent = cst.MaybeSentinel.DEFAULT
    found: list[cst.CSTNode] = []
    for name in content_fields(type(node)):
        value = getattr(node, name)
        held = type(value)
        if held is tuple or held is list:
            found.extend(value)
        elif value is not None and value is not absent:
            found.append(value)
    return found


def visit(node: cst.CSTNode, visitor: Visitor | cst.CSTVisitor, trivia: bool = True,
          only: typing.Collection[type] | None = None) -> None:
    """walk() when libcst's sources are there, else libcst's own visit. A node made from
    pre-pass text (lazy.LazyNode) is walked as the libcst node it stands for. `trivia=False`:
    the visitor has no use for whitespace, comments, punctuation or operator nodes."""
    node = real_node(node)  # type: ignore[assignment]
    if not supported():
        node.visit(visitor if isinstance(visitor, cst.CSTVisitor) else _as_cst_visitor(visitor))
    else:
        walk(node, visitor, child_fields if trivia else content_fields, only=only)


def _as_cst_visitor(visitor: Visitor) -> cst.CSTVisitor:
    """A Visitor for libcst's own visit (when its sources cannot be read)."""

    class Adapter(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            return visitor.on_visit(node)

        def on_leave(self, original_node: cst.CSTNode) -> None:
            visitor.on_leave(original_node)

    return Adapter()
