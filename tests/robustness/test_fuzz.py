"""Issue 6, item 3: property tests over generated and mutated Python.

For every input: no exception escapes `check`, no internal error (BL005), every finding lies
inside its file, the same findings come back on a second run, whatever the order the files are
named in and however many jobs check them. Sources: hypothesmith (Python generated from the
grammar, and from libcst's node types), modules assembled from the statements of testdata/ (so
that the rules fire), and real files of examples/ and testdata/ truncated and bit-flipped.

CI runs a bounded number of examples; `BREAKLINT_FUZZ=long` runs thousands (conftest.py).
Every crash found so far is fixed and replayed from the corpus (test_corpus.py): none is
tolerated here.
"""

from __future__ import annotations

import ast
import os
import tempfile
from pathlib import Path

import hypothesmith
import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .support import REPO, chdir, check, position_problems, stable_view
from testdata import HANG_GUARD_S

LONG = os.environ.get("BREAKLINT_FUZZ", "ci") != "ci"
# hypothesmith compiles what it generates; CPython's SyntaxWarnings about that code are noise here.
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")


def examples(ci: int) -> int:
    return settings.default.max_examples if LONG else ci


def assert_robust(files: dict[str, bytes], **settings_: object) -> None:
    """Check `files` (name -> bytes) twice, the second time named in reverse order, and hold
    the properties above."""
    with tempfile.TemporaryDirectory(prefix="breaklint-fuzz-") as scratch:
        root = Path(scratch)
        for name, data in files.items():
            (root / name).write_bytes(data)
        paths = [root / name for name in files]
        with chdir(root):
            first = check(paths, root=root, **settings_)
            again = check(list(reversed(paths)), root=root, **settings_)
    internal = [f"{f.path}: {f.message}\n{f.details}" for f in first.findings if f.code == "BL005"]
    assert internal == [], internal[0]
    assert position_problems(first.findings, files) == []
    assert stable_view(again.findings) == stable_view(first.findings)


# --- hypothesmith -------------------------------------------------------------------------------
@settings(max_examples=examples(15), suppress_health_check=list(HealthCheck))
@given(source=hypothesmith.from_grammar())
def test_grammar_generated_python(source: str) -> None:
    assert_robust({"gen.py": source.encode("utf-8", "surrogatepass")}, scope="all")


@settings(max_examples=examples(6), suppress_health_check=list(HealthCheck))
@given(node=hypothesmith.from_node())
def test_libcst_generated_python(node: cst.Module | str) -> None:
    source = node if isinstance(node, str) else node.code
    assert_robust({"gen.py": source.encode("utf-8", "surrogatepass")}, scope="all")


# --- modules assembled from testdata's statements -------------------------------------------------
def _statement_pool() -> tuple[list[str], list[str]]:
    statements: set[str] = set()
    imports: set[str] = set()
    for path in sorted(REPO.glob("testdata/rules/*/*.py")):
        for line in path.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if line.startswith(("import ", "from ")):
                imports.add(line)
            elif (line.startswith("    ") and stripped and not stripped.endswith(":")
                  and not stripped.startswith(("@", "def ", "class ", '"""', "return", "yield"))):
                try:
                    ast.parse(stripped)
                except SyntaxError:
                    continue
                statements.add(stripped)
    return sorted(statements), sorted(imports)


STATEMENTS, IMPORTS = _statement_pool()
HEADERS = ["if x.sum() > 0:", "if self.training:", "for i in range(3):", "for row in x:", "while x.any():",
           "with torch.no_grad():", "with open('f') as fh:", "try:", "if not torch.compiler.is_compiling():",
           "def inner(y):", "async def later(y):", "match key:"]
COMMENTS = ["", "", "", "  # breaklint: ignore[BL101]", "  # noqa: BL102", "  # breaklint: ignore",
            "  # breaklint: ignore[tensor-to-scalar, BL9]", "  # breaklint: file-ignore[BL1]"]


@st.composite
def _block(draw: st.DrawFn, depth: int) -> list[str]:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        if depth < 3 and draw(st.integers(0, 3)) == 0:
            header = draw(st.sampled_from(HEADERS))
            if header == "match key:":
                lines += [header, "    case [a, *rest] if a > 0:", *("        " + s for s in draw(_block(depth + 2)))]
                continue
            lines.append(header)
            lines += ["    " + s for s in draw(_block(depth + 1))]
            if header == "try:":
                lines += ["except Exception as error:", "    " + draw(st.sampled_from(STATEMENTS))]
            elif header.startswith("def inner"):
                lines.append("inner(x)")
        else:
            lines.append(draw(st.sampled_from(STATEMENTS)) + draw(st.sampled_from(COMMENTS)))
    return lines


@st.composite
def torch_modules(draw: st.DrawFn) -> str:
    imports = draw(st.lists(st.sampled_from(IMPORTS), max_size=6, unique=True))
    body = ["    " + line for line in draw(_block(0))]
    shape = draw(st.sampled_from(["function", "method", "helper"]))
    decorator = draw(st.sampled_from(["@torch.compile", "@torch.compile(fullgraph=True)",
                                      '@torch.compile(mode="reduce-overhead")', "@torch.compiler.disable", ""]))
    out = ["import torch", "from torch import nn", *imports, "", "state = []", ""]
    if shape == "method":
        out += ["class Net(nn.Module):", "    def __init__(self):", "        super().__init__()",
                "        self.lin = nn.Linear(4, 4)", "", "    def forward(self, x, key=None):",
                *("    " + line for line in body), "        return x", "", "", "model = torch.compile(Net())"]
    else:
        out += [decorator, "def step(x, y=None, key=None):", *body, "    return x"]
        if shape == "helper":
            out += ["", "", "@torch.compile", "def entry(x):", "    return step(x) + 1"]
    return "\n".join(out) + "\n"


@settings(max_examples=examples(40))
@given(source=torch_modules(), scope=st.sampled_from(["compiled", "all"]))
def test_assembled_torch_modules(source: str, scope: str) -> None:
    assert_robust({"model.py": source.encode()}, scope=scope)


# --- mutated real sources -----------------------------------------------------------------------
REAL = sorted(p for p in [*REPO.glob("examples/**/*.py"), *REPO.glob("testdata/**/*.py")] if p.is_file())
SNIPPETS = [b"(", b")", b"[", b"]", b":", b"\n", b"    ", b"\t", b"\\", b"'", b'"""', b"#", b"\x0c",
            b"if x:", b"lambda:", b"*", b"@", b"\xff", b"\xc3", b"\x00", b"\r\n", b" breaklint: ignore["]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = draw(st.sampled_from(REAL)).read_bytes()
    for _ in range(draw(st.integers(1, 3))):
        if not data:
            break
        kind = draw(st.sampled_from(["truncate", "flip", "delete", "duplicate", "insert", "swap"]))
        at = draw(st.integers(0, len(data) - 1))
        if kind == "truncate":
            data = data[:at]
        elif kind == "flip":
            data = data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1:]
        elif kind == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 40)):]
        elif kind == "duplicate":
            end = min(len(data), at + draw(st.integers(1, 120)))
            data = data[:end] + data[at:end] + data[end:]
        elif kind == "insert":
            data = data[:at] + draw(st.sampled_from(SNIPPETS)) + data[at:]
        else:
            lines = data.split(b"\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            data = b"\n".join(lines)
    return data


@settings(max_examples=examples(60))
@given(data=mutated(), scope=st.sampled_from(["compiled", "all"]))
def test_mutated_real_sources(data: bytes, scope: str) -> None:
    assert_robust({"mutant.py": data}, scope=scope)


@settings(max_examples=examples(10))
@given(files=st.lists(mutated(), min_size=3, max_size=5))
def test_several_mutants_together(files: list[bytes]) -> None:
    """Cross-file regions (a compile call in one file reaching a forward in another), in both
    orders; and two jobs (worker processes) give what one gives."""
    named = {f"m{i}.py": data for i, data in enumerate(files)}
    assert_robust(named)
    with tempfile.TemporaryDirectory(prefix="breaklint-fuzz-") as scratch:
        root = Path(scratch)
        for name, data in named.items():
            (root / name).write_bytes(data)
        with chdir(root):
            one = check([root], root=root, jobs=1)
            two = check([root], root=root, jobs=2)
    assert stable_view(two.findings) == stable_view(one.findings)


def test_pool_is_not_empty() -> None:
    """The generators draw from real material: a silent empty pool would test nothing."""
    assert len(STATEMENTS) > 100 and len(IMPORTS) > 5 and len(REAL) > 40


@pytest.mark.parametrize("seed_text", ["", "\n", "\ufeff", "\x00", "#", "\\", "(", "'''", "\r"])
def test_tiny_inputs(seed_text: str) -> None:
    assert_robust({"tiny.py": seed_text.encode()}, scope="all")


def test_output_is_the_same_across_processes_orders_and_jobs() -> None:
    """The real tree through the CLI, once plainly and once with another hash seed, the paths in
    reverse order and two jobs: byte for byte the same report (set and dict orders must never
    leak into the output)."""
    import subprocess

    from .support import breaklint_command

    paths = sorted(str(p.relative_to(REPO)) for p in [*REPO.glob("examples/*"), *REPO.glob("testdata/rules/*")])
    outputs = []
    for seed, jobs, order in (("1", "1", paths), ("2", "2", paths[::-1])):
        completed = subprocess.run([*breaklint_command(), "check", "--no-cache", "--format", "json", "--jobs", jobs,
                                    *order], cwd=REPO, capture_output=True, text=True, timeout=HANG_GUARD_S,
                                   env={**os.environ, "PYTHONHASHSEED": seed})
        assert completed.returncode in (0, 1), completed.stderr[-2000:]
        outputs.append(completed.stdout)
    assert len(outputs[0]) > 1000  # the tree has findings to compare
    assert outputs[1] == outputs[0]
