"""infra/lazy.py answers from the `ast` what the parsed libcst tree would: the node's class, a
call's func and its arguments (order, `*`/`**`, keywords), for every expression of the bundled
examples and testdata, and for forms where ast and libcst order or group things differently; and
the calls inside a list, tuple or comprehension (`calls_inside`) as a search of the real tree; and
the settings a conditional expression's test decides, from its text (`written_test`) as from the tree."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import libcst as cst
import pytest

from breaklint.index.conditions import cst_guards_of, text_guards_of
from breaklint.infra.lazy import calls_inside, parse_fragment, real_node, written_test
from breaklint.infra.quiet_ast import _MAY_WARN, parse_expression
from breaklint.infra.walk import content_nodes

ROOT = Path(__file__).resolve().parent.parent
WRITTEN = [
    "f(a, *b, c=1, **d)", "f(x=1, *a)", "f(*a, x=1, *b, **c)", "f(\n  a,\n  b=2)", "g(*[1], **{})",
    "f(a)(b, c=3)", "a + b", "a + b * c - d", "a ** b ** c", "(a + b) * c", "x if y else (z if w else v)", "1", "1.5", "2j", "...", "None", "True", "'a' 'b'", "f'{x}'", "-1", "not x",
    "(a, b)", "a, b", "()", "[1, 2]", "{1: 2}", "{}", "{1}", "lambda x: x", "a if b else c", "[x for x in y]",
    "{x for x in y}", "{k: v for k, v in y}", "(x for x in y)", "a < b < c", "a and b or c", "(yield x)",
    "(y := 2)", "x[1:2]", "x.y[0](z)", "torch.randn(2, 3, dtype=torch.float32)",
    "[A(1), B(C(2))]", "(f(x) for x in g(y) if h(x))", "[a.b(c)[d(e)] for _ in range(n)]", "[*f(), g()]",
    "[f(x) for x in y for z in w(x)]", "[lambda: f(1), (g(2), [h(3)])]", "[f'{a(1)}', b(2)]", "(\n  f(1),\n g(2))",
    "[x[k(1)] + m(2) for x in y]", "[]", "(f(1), )",
    "A(c) if c.flag else B(c)", "a if not (c.x or c.y == 'v') else b", "a if (c.k in ('p',\n  'q')) else b",
    "a if c.s == 'x' 'y' else b", "a if (  # why\n  c.x and c.y != 2) else b", "a if c.n is None else (b if c.m else d)",
    # a call of a dotted name as the whole text (lazy._callee), and texts that only look like one
    "nn.Linear(\n  dim,\n  dim * 3, bias=b[0] or {1: (2)})", "print(x)", "f(a)(b)", "f(a) + g(b)", "f(a).g(b)",
    "f(a)[0]", "f(a)if b else(c)", "f(a), g(b)", "f(')')", "f(a,  # )\n b)", "f(a, \\\n b)", "not(x)",
    "a.b(c)(d)(e)", "f(*a)", "f(x for x in y)",
]


def _outer_calls(node: cst.CSTNode) -> list[cst.Call]:
    return [n for n in content_nodes(node, enter=lambda n: not isinstance(n, cst.Call)) if isinstance(n, cst.Call)]


def _same(lazy: object, real: cst.CSTNode, text: str) -> None:
    assert lazy.__class__ is type(real), text
    if isinstance(real, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)):  # before real_node parses it
        mine, theirs = calls_inside(lazy, _outer_calls), _outer_calls(real)
        assert len(mine) == len(theirs), text
        again = calls_inside(lazy, _outer_calls)
        assert all(a is b for a, b in zip(again, mine, strict=True)), text  # one set of nodes for every reader
        for call, real_call in zip(mine, theirs):
            _same(call, real_call, text)
            assert cst.Module([]).code_for_node(real_node(call)) == cst.Module([]).code_for_node(real_call), text
    assert type(real_node(lazy)) is type(real), text
    if isinstance(real, cst.Call):
        _same(lazy.func, real.func, text)  # type: ignore[attr-defined]
        args = lazy.args  # type: ignore[attr-defined]
        assert len(args) == len(real.args), text
        for mine, theirs in zip(args, real.args):
            assert mine.star == theirs.star, text
            assert getattr(mine.keyword, "value", None) == getattr(theirs.keyword, "value", None), text
            _same(mine.value, theirs.value, text)
    elif isinstance(real, (cst.Attribute, cst.Subscript)):
        _same(lazy.value, real.value, text)  # type: ignore[attr-defined]
    elif isinstance(real, cst.BinaryOperation):
        _same(lazy.left, real.left, text)  # type: ignore[attr-defined]
        _same(lazy.right, real.right, text)  # type: ignore[attr-defined]
    elif isinstance(real, cst.IfExp):
        test = written_test(lazy)  # instance_builds reads the settings tested from it, libcst parsing nothing
        assert test is not None, text
        for holds in (True, False):
            assert text_guards_of(test, holds) == cst_guards_of(real.test, holds), text
        _same(lazy.body, real.body, text)  # type: ignore[attr-defined]
        _same(lazy.orelse, real.orelse, text)  # type: ignore[attr-defined]
    elif isinstance(real, cst.Name):
        assert lazy.value == real.value, text  # type: ignore[attr-defined]


@pytest.mark.parametrize("text", WRITTEN)
def test_written_forms(text: str) -> None:
    _same(parse_fragment(text), cst.parse_expression(f"({text})"), text)


def _expressions() -> list[str]:
    found: list[str] = []
    for path in sorted([*(ROOT / "examples").rglob("*.py"), *(ROOT / "testdata").rglob("*.py")]):
        text = path.read_text(encoding="utf-8")
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Call, ast.BinOp, ast.IfExp, ast.Compare, ast.Tuple, ast.Constant, ast.Lambda)):
                segment = ast.get_source_segment(text, node)
                if segment is not None and "\n" not in segment:
                    found.append(segment)
    return sorted(set(found))


def test_every_expression_of_the_examples() -> None:
    texts = _expressions()
    assert len(texts) > 500  # the corpus is there
    checked = 0
    for text in texts:
        try:
            real = cst.parse_expression(f"({text})")
        except cst.ParserSyntaxError:
            continue  # a starred or keyword fragment, not an expression alone
        _same(parse_fragment(text), real, text)
        checked += 1
    assert checked > 500


# Texts on which `ast.parse` warns on one Python or another (3.10-3.13: DeprecationWarning, then
# SyntaxWarning): an invalid escape, a number run into the name after it.
WARNS = ['"\\d"', "b'\\d'", "f'\\d{x}'", "1if x else 2", "[0x1for x in y]", "1_000if a else b",
         "0o7if a else b", "1jif a else b", "1.0if a else b", "1e5if a else b", "1 if 1else 2", "(.5if a else b)"]


def _warns(text: str) -> bool:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            ast.parse(f"({text})", mode="eval")
        except SyntaxError:
            return False
    return bool(caught)


@pytest.mark.parametrize("text", WARNS)
def test_a_text_that_makes_ast_warn_is_parsed_quietly(text: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning that escapes fails the test
        lazy, parsed = parse_fragment(text), parse_expression(f"({text})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(lazy, cst.parse_expression(f"({text})"), text)
        assert ast.dump(parsed) == ast.dump(ast.parse(f"({text})", mode="eval").body)


def test_the_quiet_parse_catches_warnings_wherever_ast_may_warn() -> None:
    """`parse_expression` skips catching warnings where `_MAY_WARN` finds nothing: over every
    expression of breaklint's own code, the examples, the testdata and WARNS, no text `ast.parse`
    warns about is skipped."""
    texts = set(_expressions()) | set(WARNS)
    for path in sorted([*(ROOT / "breaklint").rglob("*.py"), *(ROOT / "rules").rglob("*.py")]):
        lines = path.read_bytes().splitlines()
        for node in ast.walk(ast.parse(b"\n".join(lines))):  # offsets are in UTF-8 bytes
            if isinstance(node, ast.expr) and node.lineno == node.end_lineno:
                texts.add(lines[node.lineno - 1][node.col_offset:node.end_col_offset].decode())
    warned = [text for text in sorted(texts) if _warns(text)]
    assert len(warned) >= 8  # WARNS warn here: the check below can fail
    assert [text for text in warned if _MAY_WARN.search(f"({text})") is None] == []
    assert sum(_MAY_WARN.search(f"({text})") is None for text in texts) > 0.9 * len(texts)  # most skip it


def test_the_calls_of_a_call_are_itself_without_parsing() -> None:
    from breaklint.index.project import _constructor_calls

    heard: list[str] = []
    for text in ("nn.Sequential(A(1), B(C(2)))", "nn.ModuleList([A(1)] + [B(2)], f(x)(y))"):
        fragment = parse_fragment(text, lambda: heard.append(text))
        for arg in fragment.args:  # type: ignore[attr-defined]
            value = arg.value
            if isinstance(value, cst.Call):
                assert _constructor_calls(value) == (value,), text
    assert heard == []  # libcst parsed none of them


def test_the_callee_of_a_call_of_a_dotted_name_is_known_without_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    import breaklint.infra.lazy as lazy

    parsed: list[str] = []
    real_parse = lazy.parse_expression
    monkeypatch.setattr(lazy, "parse_expression", lambda source: parsed.append(source) or real_parse(source))
    node = parse_fragment("nn.Conv2d(\n    in_chs,\n    out_chs, kernel_size=(3, 3))")
    assert isinstance(node, cst.Call) and dotted_text(node.func) == "nn.Conv2d"  # type: ignore[attr-defined]
    assert parsed == []  # what it calls is read without the ast
    assert [arg.keyword.value for arg in node.args if arg.keyword] == ["kernel_size"]  # type: ignore[attr-defined]
    assert len(parsed) == 1  # the arguments, once read
    for text in ("f(a)(b)", "f(a).g(b)", "f(')')"):
        parse_fragment(text)
    assert len(parsed) == 4  # those are read from the ast


def dotted_text(node: object) -> str:
    if isinstance(node, cst.Name):
        return node.value
    assert isinstance(node, cst.Attribute)
    return f"{dotted_text(node.value)}.{node.attr.value}"
