"""walk.child_fields reads a node type's children from the compiled `_visit_and_replace_children`
(its constants), not from libcst's sources: for every node class of the installed libcst, the
same fields in the same order as its source spells them, and the same visit order as libcst's own
visit on real code."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import libcst as cst
import pytest

from breaklint.infra.walk import child_fields, supported, walk

_FIELD = re.compile(r'visit_\w+\(\s*self,\s*"(\w+)"')


def _node_classes() -> list[type]:
    found, stack = [], [cst.CSTNode]
    while stack:
        kind = stack.pop()
        stack.extend(kind.__subclasses__())
        if "_visit_and_replace_children" in vars(kind) and not inspect.isabstract(kind):
            found.append(kind)
    return sorted(found, key=lambda kind: kind.__qualname__)


def test_there_are_node_classes() -> None:
    assert supported()
    assert len(_node_classes()) > 200


@pytest.mark.parametrize("kind", _node_classes(), ids=lambda kind: kind.__qualname__)
def test_fields_match_the_source(kind: type) -> None:
    source = inspect.getsource(kind._visit_and_replace_children)
    assert child_fields(kind) == tuple(dict.fromkeys(_FIELD.findall(source)))


class _Order:
    """Every node heard, by id: visited (+), left (-)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[int] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.seen.append(id(node))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.seen.append(-id(original_node))


class _CstOrder(_Order, cst.CSTVisitor):
    """The same, as a visitor of libcst's own visit."""


def test_walk_visits_as_libcst_does() -> None:
    """On breaklint's own sources (every statement and expression kind it uses)."""
    for path in sorted(Path(cst.__file__).parent.glob("_nodes/*.py"))[:3] + sorted(
            Path(__file__).parents[1].joinpath("breaklint", "infra").glob("*.py")):
        tree = cst.parse_module(path.read_text(encoding="utf-8"))
        ours, theirs = _Order(), _CstOrder()
        walk(tree, ours)
        tree.visit(theirs)
        assert ours.seen == theirs.seen, path


class _Kinds(_Order):
    def __init__(self, kinds: frozenset[type]) -> None:
        super().__init__()
        self.kinds = kinds

    def on_visit(self, node: cst.CSTNode) -> bool:
        assert type(node) in self.kinds
        return super().on_visit(node)


def test_walk_only_hears_the_kinds_asked_in_the_same_order() -> None:
    """`only`: the visitor hears exactly the nodes of those types, in the full walk's order."""
    from breaklint.infra.walk import content_fields

    tree = cst.parse_module(Path(__file__).parents[1].joinpath("breaklint", "infra", "walk.py").read_text("utf-8"))
    kinds = frozenset({cst.Call, cst.Name, cst.If, cst.IndentedBlock})
    for fields in (child_fields, content_fields):
        everything, some = _Order(), _Kinds(kinds)
        walk(tree, everything, fields)
        walk(tree, some, fields, only=kinds)
        heard = {id(node) for node in _all_nodes(tree) if type(node) in kinds}
        assert some.seen == [mark for mark in everything.seen if abs(mark) in heard]
        assert some.seen


def _all_nodes(tree: cst.CSTNode) -> list[cst.CSTNode]:
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(node.children)
    return found
