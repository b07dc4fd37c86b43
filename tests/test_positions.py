"""index/source.py takes a function's positions and code from one code generation with a cheaper
copy of libcst's PositionProvider state (private API): they must equal MetadataWrapper's
positions and `Module.code`, for every node of every file of the examples and testdata."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from breaklint.index.source import _positions_and_code

ROOT = Path(__file__).resolve().parent.parent


def test_positions_and_code_are_libcsts() -> None:
    compared = 0
    for path in sorted([*(ROOT / "examples").rglob("*.py"), *(ROOT / "testdata").rglob("*.py")]):
        try:
            module = cst.parse_module(path.read_bytes())
        except cst.ParserSyntaxError:
            continue
        positions, code = _positions_and_code(module)
        assert code == module.code, path
        libcsts = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        assert positions == {id(node): ((r.start.line, r.start.column), (r.end.line, r.end.column))
                             for node, r in libcsts.items()}, path
        compared += 1
    assert compared > 100


# A method's lines as libcst writes them alone: indented (statements), verbatim (inside brackets
# and strings, whatever their indentation in the file), or neither.
TRICKY = '''class Net:
    def forward(self, x):
        """A docstring
over lines, the last one dedented."""
        y = torch.cat([x,
x], dim=0) + f"""
  {x}""".count("a")
        return call(y,
                    z)  # a comment

    @staticmethod
    def helper(
a, b):
        return a + b
'''


_WHITESPACE = (cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.TrailingWhitespace, cst.Newline, cst.EmptyLine)


def _spans_by_function(text: str) -> tuple[int, int]:
    """(nodes answered from their function alone, nodes in functions); every answer equals the
    whole module's position. Whitespace is no finding's place (a blank line's own whitespace
    is placed by where libcst attaches it)."""
    from breaklint.finding import Span
    from breaklint.index.source import ParsedFile

    def walk(node: cst.CSTNode) -> list[cst.CSTNode]:
        return [node, *(inner for child in node.children for inner in walk(child))]

    module = cst.parse_module(text)
    whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    file = ParsedFile(Path("x.py"), "x.py", "x", False, text, module)
    functions = [n for n in walk(module) if isinstance(n, cst.FunctionDef)]
    for function in functions:
        file.starts[function] = whole[function.decorators[0] if function.decorators else function].start.line
    answered = total = 0
    for function in functions:
        for node in walk(function):
            if node not in whole or isinstance(node, _WHITESPACE):
                continue
            total += 1
            got = file._span_in_scope(function, node)
            if got is not None:
                where = whole[node]
                assert got == Span(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1), node
                answered += 1
    return answered, total


def test_a_functions_positions_alone_are_its_positions_in_the_file() -> None:
    answered, total = _spans_by_function(TRICKY)
    assert total > 40 and answered == total  # the dedented lines too: no whole-module pass
    answered = total = 0
    for path in sorted([*(ROOT / "examples").rglob("*.py"), *(ROOT / "testdata").rglob("*.py")]):
        try:
            done, seen = _spans_by_function(path.read_text(encoding="utf-8"))
        except (cst.ParserSyntaxError, UnicodeDecodeError):
            continue
        answered, total = answered + done, total + seen
    assert total > 10_000 and answered > 0.99 * total
# Continuation lines libcst writes as they are (dedented below their block) and the lines of a
# multi-line string: a function's own positions, moved, must give the whole module's.
AS_WRITTEN = '''\
class Box:
    def check(self, x, values):
        if (x.sum() > 0 and
  x.max() < 3):
            return x
        text = """first
second""" + str(x.item())
        for value in (values +
                      [x]):
            y = [v
 for v in value]
        return foo(x,
bar(x.item()))
'''


def test_a_functions_positions_serve_lines_written_as_they_are() -> None:
    """Every node of a function with such lines is placed from the function's own positions: no
    position pass over the whole module (it was one per file holding such a line, a fifth of a
    `--scope all` run on CPython's Lib), and the same spans as the whole module's."""
    from breaklint.index.source import ParsedFile
    from breaklint.infra.walk import is_trivia

    module = cst.parse_module(AS_WRITTEN)
    whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    method = module.body[0].body.body[0]
    assert isinstance(method, cst.FunctionDef)
    file = ParsedFile(Path("box.py"), "box.py", "box", False, AS_WRITTEN, module,
                      starts={method: whole[method].start.line}, scope=method)
    inside: list[cst.CSTNode] = []

    def collect(node: cst.CSTNode) -> None:
        if not is_trivia(type(node)):  # a line end's end is the next line's column 0: never a finding's
            inside.append(node)
        for child in node.children:
            collect(child)

    collect(method)
    seen = 0
    for node in inside:
        where = whole[node]
        span = file.span(node)
        assert (span.start_line, span.start_col, span.end_line, span.end_col) == (
            where.start.line, where.start.column + 1, where.end.line, where.end.column + 1), node
        seen += 1
    assert seen > 50
    assert file._positions is None  # the whole module's were never computed
