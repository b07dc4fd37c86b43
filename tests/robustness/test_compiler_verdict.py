"""Issue 18, item 7 (in part): what Python's compiler refuses is a syntax error, though its parser
takes it. Such files passed clean (CPython's own `badsyntax_future*.py`: no finding at all): a late
`from __future__` import, `import braces`, `return`/`break` outside a function or loop, a
duplicate argument, `nonlocal` without a binding, `global` after use. `compile()` judges them
from the parsed tree, without running anything; the BL001 is where and what Python says."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from breaklint.check.engine import _POOL_FROM
from breaklint.index.builder import summarize_lines
from breaklint.index.scan import compiled_verdict, compiler_verdict, parser_verdict, scan_text

from .support import BAD, GOOD_FINDING, run_cli

REFUSED = {
    "late_future.py": '"""doc"""\nimport os\nfrom __future__ import annotations\n',
    "braces.py": "from __future__ import braces\n",
    "unknown_future.py": "from __future__ import rocket_science\n",
    "return_outside.py": BAD + "\nreturn 1\n",
    "break_outside.py": "x = 1\nbreak\n",
    "continue_outside.py": "for i in range(3):\n    pass\ncontinue\n",
    "duplicate_argument.py": "def f(a, b, a):\n    return a\n",
    "nonlocal_unbound.py": "def f():\n    nonlocal x\n    return x\n",
    "nonlocal_at_module.py": "nonlocal x\n",
    "global_after_use.py": "def f():\n    print(x)\n    global x\n",
    "yield_outside.py": "x = 1\nyield x\n",
    "await_outside.py": "def f(x):\n    return await x\n",
    # module-level data is not compiled (scan._worth_compiling): what it must not hide
    "late_future_after_data.py": "TABLE = [1, 2]\nfrom __future__ import annotations\n",
    "refused_after_data.py": "TABLE = [1, 2]\nf(a=1, a=2)\n",
    "refused_annotation.py": "TABLE = [1, 2]\nx: f(a=1, a=2) = 1\n",
    "debug_assigned.py": "TABLE = [1, 2]\n__debug__ = 1\n",
    # each construct the index's walk notes for the compiler (builder._Walker.refusable)
    "default_except_first.py": "try:\n    pass\nexcept:\n    pass\nexcept ValueError:\n    pass\n",
    "except_star_break.py": "for x in y:\n    try:\n        pass\n    except* ValueError:\n        break\n",
    "class_keyword_repeated.py": "class A(x=1, x=2):\n    pass\n",
    "lambda_duplicate.py": "g = lambda a, a: a\n",
    "starred_alone.py": "*a = [1]\n",
    "two_starred.py": "*a, *b = [1, 2]\n",
    "starred_returned.py": "def f():\n    return *a\n",
    "yield_in_comprehension.py": "def f(y):\n    return [(yield x) for x in y]\n",
    "yield_in_class.py": "class A:\n    yield 1\n",
    "yield_in_default.py": "def f(a=(yield)):\n    pass\n",
    "return_in_class.py": "def f():\n    class A:\n        return 1\n",
    "break_in_else.py": "for x in y:\n    pass\nelse:\n    break\n",
    "break_in_nested_def.py": "for x in y:\n    def f():\n        break\n",
    "continue_in_class.py": "while y:\n    class A:\n        continue\n",
    "walrus_in_comprehension.py": "def f():\n    return [i := 0 for i in range(3)]\n",
    "walrus_rebinds_outer_variable.py": "def f(a, b):\n    return [[j := 0 for _ in a] for j in b]\n",
    "walrus_rebinds_later_variable.py": "def f(a, b):\n    return [i for _ in a if (j := 1) for j in b]\n",
    "walrus_in_iterable.py": "def f(a):\n    return [x for x in (y := a)]\n",
    "walrus_in_class_comprehension.py": "class A:\n    z = [(y := x) for x in range(3)]\n",
    "async_for_outside.py": "def f(y):\n    async for x in y:\n        pass\n",
    "async_with_outside.py": "def f(y):\n    async with y:\n        pass\n",
    "async_comprehension_outside.py": "def f(y):\n    return [x async for x in y]\n",
    "import_star_in_def.py": "def f():\n    from os import *\n",
    "future_in_def.py": "def f():\n    from __future__ import annotations\n",
    "future_star.py": "from __future__ import *\n",
    "future_after_a_number.py": "1\nfrom __future__ import annotations\n",
    "future_after_bytes.py": "b'doc'\nfrom __future__ import annotations\n",
    "future_after_two_strings.py": "'doc'\n'more'\nfrom __future__ import annotations\n",
    "global_after_assign.py": "def f():\n    x = 1\n    global x\n",
    "global_after_use_in_if.py": "def f():\n    print(x)\n    if x:\n        global x\n",
    "global_parameter.py": "def f(x):\n    global x\n",
    "global_annotated.py": "def f():\n    global x\n    x: int = 1\n",
    "global_and_nonlocal.py": "def g():\n    x = 1\n    def f():\n        global x\n        nonlocal x\n",
    "nonlocal_hidden_by_global.py": "def g():\n    global x\n    x = 1\n    def f():\n        nonlocal x\n",
    "nonlocal_of_a_class_name.py": "def g():\n    class A:\n        x = 1\n        def f(self):\n            nonlocal x\n",
    "nonlocal_comprehension_variable.py": "def g(y):\n    z = [x for x in y]\n    def f():\n        nonlocal x\n",
    "nested_blocks.py": "".join("    " * i + f"for x{i} in y:\n" for i in range(21)) + "    " * 21 + "pass\n",
    "match_irrefutable_first.py": "match x:\n    case a:\n        pass\n    case b:\n        pass\n",
    "match_wildcard_first.py": "match x:\n    case _:\n        pass\n    case 1:\n        pass\n",
    "match_capture_twice.py": "match x:\n    case [a, a]:\n        pass\n",
    "match_alternatives_differ.py": "match x:\n    case [a] | [b]:\n        pass\n",
    "match_alternative_irrefutable.py": "match x:\n    case a | 1:\n        pass\n",
    "match_two_stars.py": "match x:\n    case [*a, *b]:\n        pass\n",
    "match_duplicate_key.py": "match x:\n    case {1: a, True: b}:\n        pass\n",
    "match_repeated_attribute.py": "match x:\n    case C(a=1, a=2):\n        pass\n",
    "debug_keyword.py": "f(__debug__=1)\n",
}

# What the compiler takes, with the same constructs where they belong: the walk asks it nothing.
TAKEN = {
    "leading declarations": 'def f():\n    """doc"""\n    global x, y\n    x = 1\n',
    "a later global of a name not written before": "def f(a):\n    if a:\n        global x\n        x = a\n",
    "nonlocal of an assigned name": "def g():\n    x = 1\n    def f():\n        nonlocal x\n        x = 2\n",
    "nonlocal of a name bound after": "def g():\n    def f():\n        nonlocal x\n    x = 1\n",
    "nonlocal through a nonlocal": "def g():\n    x = 1\n    def f():\n        nonlocal x\n        def h():\n"
                                   "            nonlocal x\n            x = 2\n",
    "nonlocal of other bindings": "def g(p):\n    for t, (u, *v) in p:\n        pass\n    with p as w:\n        import os.path\n"
                                  "    try:\n        pass\n    except E as e:\n        pass\n    def f():\n"
                                  "        nonlocal p, t, u, v, w, os, e\n",
    "nonlocal across a class": "def g():\n    x = 1\n    class A:\n        def f(self):\n            nonlocal x\n",
    "break in a loop's else, in a loop": "while y:\n    for x in y:\n        pass\n    else:\n        break\n",
    "yield and return in defs": "def f(y):\n    yield from y\n    return 1\n\ng = lambda: 1\n",
    "starred targets and displays": "a, *b = y\nc = [*a, *b]\nf(*a, **k)\nfor x, *z in y:\n    pass\n",
    "walrus in a def": "def f(y):\n    if (n := len(y)) > 1:\n        return n\n",
    "walrus at module level and in a class": "if (m := 1):\n    pass\nclass A:\n    y = (x := 2)\n",
    "walrus in a comprehension's condition": "def f(xs):\n    return [y for x in xs if (y := x + 1)]\n",
    "future after the docstring": '"""doc"""\nfrom __future__ import annotations, division\n',
    "keywords once each": "f(a=1, b=2, **k)\nclass A(B, metaclass=M):\n    pass\n",
    "match": "match x:\n    case [a, *rest] if a:\n        pass\n    case {'k': v, **kw}:\n        pass\n"
             "    case C(1, b=c) | D(c):\n        pass\n    case m.CONST | -1 | None:\n        pass\n    case _:\n        pass\n",
    "a bare except last": "try:\n    pass\nexcept ValueError:\n    pass\nexcept:\n    pass\n",
    "eleven nested loops": "".join("    " * i + f"for x{i} in y:\n" for i in range(11)) + "    " * 11 + "pass\n",
}


def test_the_walk_asks_the_compiler_where_it_may_refuse() -> None:
    """builder._Walker.refusable: every text of REFUSED (the compiler refuses each) is noted for
    it; none of TAKEN (it takes each) is; benchmarks/compiler_gate.py runs this on every text
    CPython's own tests have the compiler refuse."""
    for name, text in REFUSED.items():
        assert summarize_lines(text, "m", False, ast.parse(text))[3], name
    for name, text in TAKEN.items():
        compile(text, name, "exec", dont_inherit=True)  # the table's premise
        assert not summarize_lines(text, "m", False, ast.parse(text))[3], name
    # What the walk cannot judge goes to the compiler, though it takes these: a dunder declared
    # (`super()` reads `__class__` unwritten), a name written before its `global`, non-ASCII text.
    for text in ("class A:\n    def f(self):\n        global __x\n",
                 "def f(a):\n    y = 'x'\n    global x\n", "def f(a):\n    é = 1\n    global x\n"):
        compile(text, "unjudged", "exec", dont_inherit=True)
        assert summarize_lines(text, "m", False, ast.parse(text))[3], text


def test_the_walks_text_searches_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A `global` that does not open its def is judged by a search of the def's text before it
    (refusals.may_be_named_in); a huge def with one on every line reads at most four times the
    file's size (plus 64 KiB) before the file goes to the compiler whole: a count, not a clock."""
    import breaklint.index.builder as builder

    read: list[int] = []
    original = builder.may_be_named_in

    def counting(source: bytes, names: list[str]) -> bool:
        read.append(len(source))
        return original(source, names)

    monkeypatch.setattr(builder, "may_be_named_in", counting)
    body = "".join(f"    if y:\n        global g{i}\n" for i in range(3000))
    text = "def f(y):\n" + "    z = 1\n" * 5000 + body
    compile(text, "huge", "exec", dont_inherit=True)  # the compiler takes it
    assert summarize_lines(text, "m", False, ast.parse(text))[3]  # handed to it once the budget is spent
    assert 0 < sum(read) <= 4 * len(text.encode()) + 65536
    # A comprehension's iteration variables are gathered once for all the `:=` in it.
    walks: list[ast.expr] = []
    gather = builder.comprehension_targets
    monkeypatch.setattr(builder, "comprehension_targets", lambda node: walks.append(node) or gather(node))
    text = "def f(xs):\n    return [y for x in xs " + " ".join(f"if (y{i} := x)" for i in range(1000)) + "]\n"
    assert not summarize_lines(text, "m", False, ast.parse(text))[3]
    assert len(walks) == 1


def where_python_says(text: str) -> tuple[int, int, str]:
    with pytest.raises(SyntaxError) as refused:
        compile(text, "refused.py", "exec", dont_inherit=True)
    return refused.value.lineno or 1, refused.value.offset or 1, refused.value.msg


def test_the_compilers_refusals_are_syntax_errors(tmp_path: Path) -> None:
    for name, text in REFUSED.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / GOOD_FINDING[0]).write_text(BAD, encoding="utf-8")
    run = run_cli(["check", "--no-cache", "--format", "json", "."], cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    found = {(r["path"], r["code"], r["start_line"], r["start_column"]): r["message"] for r in run.records()}
    expected = {GOOD_FINDING}
    for name, text in REFUSED.items():
        line, col, message = where_python_says(text)
        expected.add((name, "BL001", line, col))
        assert found.get((name, "BL001", line, col)) == f"syntax error: {message}", (name, found)
    assert set(found) == expected


def test_two_jobs_judge_as_one_job(tmp_path: Path) -> None:
    """With two jobs and enough files for a pool, the pre-pass leaves the compiler to the engine,
    which asks it while the regions are computed (engine._judge): the same findings as one job,
    cold and through the cache (unjudged facts are never cached). `return_outside.py` holds a
    compiled function: the regions are computed again without it. The fillers' forwards make
    the regions' walk long enough for every verdict to wait for it (engine._Run._judged_later)."""
    for name, text in REFUSED.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / GOOD_FINDING[0]).write_text(BAD, encoding="utf-8")
    for i in range(_POOL_FROM + 6):
        (tmp_path / f"filler_{i}.py").write_text(
            f"import torch\n\n\nclass M{i}(torch.nn.Module):\n    def forward(self, x):\n        return x + {i}\n",
            encoding="utf-8")
    reference = run_cli(["check", "--no-cache", "--jobs", "1", "--format", "json", "."], cwd=tmp_path)
    expected = reference.found()
    assert {name for name, code, _, _ in expected if code == "BL001"} == set(REFUSED)
    assert GOOD_FINDING in expected
    for args in (["--no-cache"], [], []):  # cold, then the cache's second run
        run = run_cli(["check", *args, "--jobs", "2", "--format", "json", "."], cwd=tmp_path)
        assert run.returncode == 1, run.stderr
        assert run.found() == expected


def test_the_verdicts_left_for_later_are_what_the_regions_leave_time_for() -> None:
    """engine._Run._judged_later: with two jobs, the compiler is asked beside the regions for as
    many bytes as the walk's starting points buy (a `def forward` each, or a compile call where
    forwards are not assumed compiled), the smallest files first; none with one job or nothing
    to walk from (asking afterwards compiles the text again, a quarter more than in the pre-pass)."""
    from types import SimpleNamespace

    from breaklint.check.engine import _JUDGED_BESIDE_A_START, _Run

    def later(texts: list[bytes | str], jobs: int, assume_forward: bool = True) -> set[int]:
        run = SimpleNamespace(config=SimpleNamespace(assume_forward_compiled=assume_forward))
        return _Run._judged_later(run, [(i, (text, f"m{i}", False, "")) for i, text in enumerate(texts)], jobs)  # type: ignore[arg-type]

    forward = b"class M(nn.Module):\n    def forward(self, x):\n        return x\n"
    filler = b"x = 1\n" * (_JUDGED_BESIDE_A_START // 6)  # a little under the bytes one start buys
    texts: list[bytes | str] = [filler * 3, forward, filler, filler * 2, "an overlay's text: never counted"]
    assert later(texts, jobs=1) == set()
    assert later([filler, filler * 2], jobs=2) == set()  # nothing to walk from
    assert later(texts, jobs=2) == {4, 1}  # one start: the smallest files, within its bytes
    assert later([*texts, forward, forward], jobs=2) == {4, 1, 5, 6, 2}  # three starts
    assert later([*texts, forward, forward], jobs=3) == {4, 1, 5, 6, 2, 3}  # and two spare cores
    compiled = [b"f = torch.compile(g)\nh = torch.compile(k)\n", filler, forward]
    assert later(compiled, jobs=2, assume_forward=False) == {0, 2, 1}  # two starts
    assert later(compiled, jobs=2) == {0, 2}  # one


def compiled(text: str, defer: bool = False):  # type: ignore[no-untyped-def]
    tree = parser_verdict(text).tree
    assert tree is not None
    return compiled_verdict(text, tree, defer_compile=defer)


def test_the_deferred_verdict_is_the_same_verdict() -> None:
    """compiler_verdict (the whole text) says what the pre-pass's own compile (the tree, less its
    module-level data) says; a text whose data is more than a tenth of its lines is judged at once."""
    deferred = 0
    for name, text in REFUSED.items():
        problem = compiler_verdict(text)
        assert problem is not None and problem == scan_text(text, "d", "m", False).problem, name
        verdict = compiled(text, defer=True)
        assert (verdict.problem, verdict.deferred) in ((None, True), (problem, False)), name
        assert scan_text(text, "d", "m", False, defer_compile=True).unjudged == verdict.deferred, name
        deferred += verdict.deferred
    assert deferred >= len(REFUSED) // 2
    taken = "import torch\n\ndef f(x):\n    return x\n"
    assert compiler_verdict(taken) is None and not scan_text(taken, "d", "m", False, defer_compile=True).problem
    table = "TABLE = [\n" + "    (1, 2.5, 'name'),\n" * 200 + "]\n"  # 202 lines of data
    one = "def f(x):\n    return x\n"
    code = one * 1000  # 2,000 lines of code
    assert not compiled(table, defer=True).deferred
    assert not compiled(one * 166 + table, defer=True).deferred
    assert compiled(code + table, defer=True).deferred  # a tenth of the lines at most
    assert compiled(code, defer=True).deferred  # nothing to leave out


def test_the_language_server_judges_files_and_buffers(tmp_path: Path) -> None:
    from breaklint.lsp.workspace import load_project

    refused = tmp_path / "duplicate_argument.py"
    refused.write_text(REFUSED["duplicate_argument.py"], encoding="utf-8")
    buffer = tmp_path / "buffer.py"
    buffer.write_text(BAD, encoding="utf-8")
    project, error = load_project(tmp_path)
    assert error is None
    edited = "x = 1\nbreak\n"
    found = project.check([refused.resolve(), buffer.resolve()], {buffer.resolve(): edited})
    for path, text in ((refused, REFUSED["duplicate_argument.py"]), (buffer, edited)):
        line, col, message = where_python_says(text)
        assert [(f.code, f.message, f.span.start_line, f.span.start_col) for f in found[path.resolve()]] == \
            [("BL001", f"syntax error: {message}", line, col)]


def test_what_only_warns_is_not_refused(tmp_path: Path) -> None:
    """A SyntaxWarning (an invalid escape, `is` with a literal) is the compiler's business, not a
    finding, and is never printed; the file is checked as usual."""
    (tmp_path / "warns.py").write_text(BAD + "\npattern = '\\d+'\nsame = 1 is 1\n", encoding="utf-8")
    run = run_cli(["check", "--no-cache", "--format", "json", "."], cwd=tmp_path)
    assert run.found() == {("warns.py", "BL101", 5, 12)}
    assert run.stderr == ""
