"""Issue 18, item 7 (in part): what Python's compiler refuses is a syntax error, though its parser
takes it. Such files passed clean (CPython's own `badsyntax_future*.py`: no finding at all): a late
`from __future__` import, `import braces`, `return`/`break` outside a function or loop, a
duplicate argument, `nonlocal` without a binding, `global` after use. `compile()` judges them
from the parsed tree, without running anything; the BL001 is where and what Python says."""

from __future__ import annotations

from pathlib import Path

import pytest

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
}


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


def test_what_only_warns_is_not_refused(tmp_path: Path) -> None:
    """A SyntaxWarning (an invalid escape, `is` with a literal) is the compiler's business, not a
    finding, and is never printed; the file is checked as usual."""
    (tmp_path / "warns.py").write_text(BAD + "\npattern = '\\d+'\nsame = 1 is 1\n", encoding="utf-8")
    run = run_cli(["check", "--no-cache", "--format", "json", "."], cwd=tmp_path)
    assert run.found() == {("warns.py", "BL101", 5, 12)}
    assert run.stderr == ""
