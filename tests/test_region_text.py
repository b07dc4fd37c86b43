"""libcst parses only the code the rules visit (index/region_text.py): everything else is
blanked (class bodies' own statements too), lines and columns kept, every class header and every
def (as `def name():` outside the regions) kept for the index to bind."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest

from breaklint.check.engine import Engine
from breaklint.check.registry import RuleSet
from breaklint.config import Config
from breaklint.index.def_lines import split_lines
from breaklint.index.region_text import outline, region_text

SOURCE = '''\
import torch
TABLE = {
    "a": [1, 2, 3],  # a comment
}


class Net(torch.nn.Module):
    """Doc."""
    size = 3

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Linear(3, 3)

    @torch.compile
    def forward(self, x):
        return self.w(x).sum().item()


def helper(x):
    if x:
        def inner():
            return 1
    return x; y = 2
'''


def lines_of(name: str, text: str = SOURCE) -> tuple[int, int]:
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return min([node.lineno, *(d.lineno for d in node.decorator_list)]), node.end_lineno or node.lineno
    raise LookupError(name)


def test_what_is_not_visited_is_blanked_and_everything_stays_in_place() -> None:
    region = region_text(SOURCE, [lines_of("forward")])
    assert region is not None
    original, masked = SOURCE.splitlines(), region.text.splitlines()
    placed = {region.file_line(number): line for number, line in enumerate(masked, start=1)}
    assert len(placed) == len(masked)  # each tree line is one line of the file
    for number, line in placed.items():  # as written there, or a `pass` for what goes, or a def's stub
        assert line == original[number - 1] or line.strip() == "pass" or \
            line == original[number - 1].partition("(")[0] + "():", (number, line)
    start, end = lines_of("forward")
    assert all(placed[n] == original[n - 1] for n in range(start, end + 1))  # the region as written
    assert placed[1] == "pass" and 2 not in placed and 3 not in placed  # import and table: one `pass`
    assert placed[8] == "    pass" and 9 not in placed  # a class body's own statements: one `pass`
    assert placed[11] == "    def __init__():" and placed[12] == "        pass" and 13 not in placed  # a stub
    assert (placed[20], placed[22]) == ("def helper():", "        def inner():")  # a nested def's too
    assert placed[21] == original[20]  # what holds a def stays
    assert placed[23] == "            pass" and placed[24] == original[23]  # `a; b`: not blanked alone
    defs = [n.name for n in ast.walk(ast.parse(region.text)) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert defs == [n.name for n in ast.walk(ast.parse(SOURCE)) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert cst.parse_module(region.text).code == region.text
    assert region.bodiless == {11, 20, 22}  # __init__, helper and inner: read from their own lines


def test_positions_from_the_whole_tree_are_the_files() -> None:
    """The fallback that computes every node's position from the tree maps its lines back."""
    from breaklint.index.source import ParsedFile

    region = region_text(SOURCE, [lines_of("forward")])
    assert region is not None
    tree = cst.parse_module(region.text)
    parsed = ParsedFile(Path("m.py"), "m.py", "m", False, SOURCE, tree, region=region)
    item = next(node for node in _calls(tree) if isinstance(node.func, cst.Attribute) and node.func.attr.value == "item")
    span = parsed.span(item)
    assert (span.start_line, span.start_col) == (17, 16) and SOURCE.splitlines()[16][15:].startswith("self.w(x)")


def _calls(tree: cst.Module) -> list[cst.Call]:
    found: list[cst.Call] = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            found.append(node)

    tree.visit(Calls())
    return found


def test_nothing_to_blank_or_nothing_parsable_gives_none() -> None:
    assert region_text("def f(x):\n    return x\n", [(1, 2)]) is None
    assert region_text("def f(:\n", [(1, 1)]) is None


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(root: Path, **settings: object) -> tuple[set[tuple[str, int, int]], dict[str, int]]:
    config = Config(root=root, **settings)  # type: ignore[arg-type]
    result = Engine(config, RuleSet(config), jobs=1).check([root])
    return {(f.code, f.span.start_line, f.span.start_col) for f in result.findings}, dict(result.work)


def test_a_big_literal_beside_a_region_never_reaches_libcst(project: Path) -> None:
    data = "DATA = [" + ", ".join(map(str, range(20_000))) + "]\n"
    text = "import torch\n\n" + data + "\n@torch.compile\ndef f(x):\n    return x.sum().item()\n"
    (project / "m.py").write_text(text)
    found, work = check(project)
    assert found == {("BL101", 7, 12)}
    assert work["libcst_chars"] < 100 < len(data)


def test_a_reader_of_module_level_code_gets_the_whole_tree(project: Path) -> None:
    """`torch._dynamo.config.capture_scalar_outputs = True` at module level: BL101 reads it from
    the file's whole tree, parsed for it (and counted) though the rules visit only `f`."""
    text = ("import torch\n\ntorch._dynamo.config.capture_scalar_outputs = True\n\n"
            "@torch.compile\ndef f(x):\n    return x.sum().item()\n")
    (project / "m.py").write_text(text)
    found, work = check(project)
    assert found == set()
    assert (work["libcst_files"], work["whole_trees"]) == (1, 1) and work["libcst_chars"] > len(text)


def test_scope_all_visits_every_function(project: Path) -> None:
    (project / "m.py").write_text("X = 1\n\ndef f(x):\n    return x.sum().item()\n\ndef g(x):\n    return x.tolist()\n")
    found, work = check(project, scope="all")
    assert {code for code, *_ in found} == {"BL101"} and len(found) == 2


def test_a_caller_outside_the_regions_is_read_from_its_own_lines(project: Path) -> None:
    """What a non-region caller passes (BL122: an iterator) is read from the caller's own code,
    though libcst was given only its header."""
    (project / "m.py").write_text(
        "import torch\n\n@torch.compile\ndef accumulate(chunks, x):\n    for chunk in chunks:\n"
        "        x = x + chunk\n    return x\n\ndef main():\n    accumulate(iter([1.0, 2.0]), torch.randn(8))\n")
    found, work = check(project)
    assert found == {("BL122", 5, 18)}
    assert work["libcst_chars_alone"] > 0


def _defs(tree: ast.Module) -> list[tuple[int, int]]:
    return [(min([d.lineno for d in node.decorator_list] + [node.lineno]), node.end_lineno or node.lineno)
            for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def test_the_pre_pass_outline_blanks_as_parsing_the_text_does() -> None:
    """The outline the pre-pass stores (runs of statements merged) gives the text that parsing
    the file here gives, for every file of the examples and testdata, each def kept alone."""
    root = Path(__file__).resolve().parent.parent
    compared = 0
    for path in sorted([*(root / "examples").rglob("*.py"), *(root / "testdata").rglob("*.py"), Path(__file__)]):
        text = path.read_text(encoding="utf-8")
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        blocks = outline(tree, split_lines(text))
        for kept in [[], *([d] for d in _defs(tree)), _defs(tree)]:
            parsed, outlined = region_text(text, kept), region_text(text, kept, blocks)
            assert (parsed is None) == (outlined is None), (path, kept)
            if parsed is not None and outlined is not None:
                assert (outlined.text, outlined.anchors, outlined.bodiless) == \
                    (parsed.text, parsed.anchors, parsed.bodiless), (path, kept)
                compared += 1
    assert compared > 100


def test_a_check_blanks_from_the_stored_outline(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check does not parse a file with `ast` again to blank it: the pre-pass's outline is used."""
    import breaklint.index.region_text as module

    made: list[int] = []
    real = module.outline
    monkeypatch.setattr(module, "outline", lambda tree, lines: made.append(1) or real(tree, lines))
    (project / "m.py").write_text(SOURCE)
    found, work = check(project)
    assert ("BL101", 17, 16) in found and work["libcst_chars"] < len(SOURCE)
    assert made == []  # region_text never made an outline of its own


def test_the_region_text_gives_the_whole_trees_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file of the examples and the rules' testdata checked from its region text (defs
    outside the regions as `def name():` stubs, other code blanked) and from its whole tree:
    the same findings, from less parsed (on timm 1.0.29: 0.75 of 3.89 M characters, against
    1.33 M with whole headers and class bodies)."""
    import breaklint.check.engine as engine

    root = Path(__file__).resolve().parent.parent
    paths = [root / "examples", root / "testdata" / "rules"]
    config = Config(root=root)

    def findings() -> tuple[list[tuple[str, str, int, int, str]], int]:
        result = Engine(config, RuleSet(config), jobs=1).check(paths)
        return sorted((f.code, f.path, f.span.start_line, f.span.start_col, f.message) for f in result.findings), \
            result.work["libcst_chars"]

    from_regions, region_chars = findings()
    monkeypatch.setattr(engine, "region_text", lambda *_: None)
    from_trees, tree_chars = findings()
    assert from_regions == from_trees and len(from_regions) > 300
    assert region_chars < tree_chars
