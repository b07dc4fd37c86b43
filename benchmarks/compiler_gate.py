"""Does the index's walk see everything Python's compiler may refuse? (builder._Walker.refusable)

The pre-pass compiles a file's tree only where the walk found something the compiler judges
beyond the grammar (scan.compiled_verdict); a text the compiler refuses that the walk let pass
would be checked as valid. This script tries the walk on every text Python's parser takes and its
compiler refuses, drawn from the files given (CPython's Lib/test is the richest source: whole
files, every string constant in them, as written and dedented, every doctest example), and on every file of a corpus it
reports how many files and bytes are still compiled.

    python benchmarks/compiler_gate.py /root/.pyenv/versions/3.11.7/lib/python3.11/test
    python benchmarks/compiler_gate.py --corpus /tmp/torchtree
    python benchmarks/compiler_gate.py --mutants 20 --sample 150 --corpus /tmp/torchtree

`--mutants K`: K mutants of each corpus file (of a random `--sample` of them), each with one
statement the compiler may refuse inserted at a random line (`global`/`nonlocal` of a name the
file uses, `break`, `yield`, a late `__future__`, a repeated keyword, a `:=` in a comprehension,
a `match` whose first case captures, ...): the same check on texts no test suite wrote.

Exit status 1 when a refused text was let pass (each is printed).
"""

from __future__ import annotations

import argparse
import ast
import random
import re
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Iterator

from breaklint.index.builder import summarize_lines


def compiler_refuses(text: str, tree: ast.Module) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(tree, "<gate>", "exec", dont_inherit=True)
    except SyntaxError:
        return True
    except (RecursionError, MemoryError, ValueError):
        return False
    return False


def parsed(text: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return None


def parsed_file(path: Path) -> tuple[str, ast.Module] | None:
    """A UTF-8 file's text and tree, or None."""
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None
    tree = parsed(text)
    return None if tree is None else (text, tree)


def refusable(text: str, tree: ast.Module) -> bool:
    try:
        return summarize_lines(text, "m", False, tree)[3]
    except RecursionError:
        return True  # the pre-pass retries with room: not this script's business


def snippets(path: Path) -> Iterator[str]:
    """The file, its string constants, and its doctest examples (`>>> ` / `... ` runs)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return
    yield text
    tree = parsed(text)
    if tree is None:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip():
            yield node.value
            yield textwrap.dedent(node.value)  # as the tests' own assert_syntax_error reads them
            yield from _doctests(node.value)


def _doctests(text: str) -> Iterator[str]:
    example: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(">>> "):
            if example:
                yield "\n".join(example) + "\n"
            example = [stripped[4:]]
        elif stripped.startswith("... ") or stripped == "...":
            if example:
                example.append(stripped[4:])
        elif example:
            yield "\n".join(example) + "\n"
            example = []
    if example:
        yield "\n".join(example) + "\n"


# Statements the compiler may refuse, by where they land: {n} and {m} are names the file uses,
# {i} the indentation of the line they are inserted at.
MUTATIONS = [
    "global {n}", "nonlocal {n}", "global {n}, {m}", "nonlocal {n}, {m}", "break", "continue", "return", "return {n}",
    "yield", "yield {n}", "yield from {n}", "await {n}", "from __future__ import annotations", "from os import *",
    "{n}: int = 1", "{n}: int", "({n} := 1)", "[{n} := 0 for {n} in {m}]", "[y for {n} in ({n} := {m})]",
    "[({n} := y) for y in {m}]", "*{n} = {m}", "*{n}, *{m} = z", "{n}, *{m} = z", "f({n}=1, {n}=2)",
    "g = lambda {n}, {n}: 0", "g = lambda: (yield)", "def {n}({m}, {m}): pass", "def {n}():\n{i}    nonlocal {m}",
    "def {n}():\n{i}    global {m}\n{i}    {m}: int = 1", "class {n}:\n{i}    return", "class {n}:\n{i}    yield",
    "class {n}:\n{i}    {m} = [({m} := 1) for _ in z]", "for {n} in {m}:\n{i}    pass\n{i}else:\n{i}    break",
    "async with {n}: pass", "[{n} async for {n} in {m}]", "del {n}", "import {n}", "{n} += 1", "with {n} as {m}: pass",
    "try:\n{i}    pass\n{i}except:\n{i}    pass\n{i}except E:\n{i}    pass",
    "match {n}:\n{i}    case {m}:\n{i}        pass\n{i}    case 1:\n{i}        pass",
    "match {n}:\n{i}    case [{m}, {m}]:\n{i}        pass", "def {n}(*, {m}, **{m}): pass", "class {n}({m}=1, {m}=2): pass",
    "print(*{n}, **{m})", "{n} = *{m},", "return *{n}", "def {n}({m}=(yield)): pass", "@(yield)\n{i}def {n}(): pass",
    "def {n}() -> (yield): pass", "{n} = [i for i in range(3) if (yield)]", "global __class__", "nonlocal __class__",
]


def mutants(text: str, tree: ast.Module, count: int, rnd: random.Random) -> Iterator[str]:
    """`count` texts: `text` with one of MUTATIONS inserted at a random line, at its indentation."""
    names = sorted({node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
                   | {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)}) or ["x"]
    lines = text.splitlines(keepends=True)
    for _ in range(count if lines else 0):
        at = rnd.randrange(len(lines) + 1)
        indent = re.match(r"[ \t]*", lines[min(at, len(lines) - 1)]).group(0)  # type: ignore[union-attr]
        statement = rnd.choice(MUTATIONS).format(n=rnd.choice(names), m=rnd.choice(names), i=indent)
        yield "".join(lines[:at]) + indent + statement + "\n" + "".join(lines[at:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sources", nargs="*", type=Path, help="files or folders whose texts the compiler may refuse")
    parser.add_argument("--corpus", type=Path, action="append", default=[], help="a tree: what share is still compiled")
    parser.add_argument("--mutants", type=int, default=0, help="mutants of each corpus file instead (see above)")
    parser.add_argument("--sample", type=int, default=0, help="with --mutants: this many files of each corpus, at random")
    args = parser.parse_args()
    missed = tried = refused = 0
    seen: set[str] = set()
    for source in args.sources:
        for path in sorted(source.rglob("*.py")) if source.is_dir() else [source]:
            for text in snippets(path):
                if text in seen:
                    continue
                seen.add(text)
                tree = parsed(text)
                if tree is None:
                    continue
                tried += 1
                if not compiler_refuses(text, tree):
                    continue
                refused += 1
                if not refusable(text, tree):
                    missed += 1
                    print(f"MISSED ({path}):\n{text[:600]}\n---")
    if args.sources:
        print(f"Python {sys.version.split()[0]}: {tried} texts parsed, {refused} refused by the compiler, "
              f"{missed} of those let pass by the walk")
    if args.mutants:
        missed += mutate(args.corpus, args.mutants, args.sample)
        return 1 if missed else 0
    for corpus in args.corpus:
        files = kept = total = kept_bytes = 0
        for path in sorted(corpus.rglob("*.py")):
            found = parsed_file(path)
            if found is None:
                continue
            text, tree = found
            files += 1
            total += len(text)
            is_refused = compiler_refuses(text, tree)
            if refusable(text, tree):
                kept += 1
                kept_bytes += len(text)
            elif is_refused:
                missed += 1
                print(f"MISSED: {path}")
        print(f"{corpus}: {files} files, {kept} still compiled ({kept_bytes / max(total, 1):.1%} of the bytes)")
    return 1 if missed else 0


def mutate(corpora: list[Path], count: int, sample: int) -> int:
    """The mutants of each corpus's files that parse and that the compiler refuses, tried on the
    walk; how many it let pass (each is printed)."""
    rnd = random.Random(7)  # the same mutants on every run
    missed = 0
    for corpus in corpora:
        paths = sorted(corpus.rglob("*.py"))
        if sample:
            paths = random.Random(1).sample(paths, min(sample, len(paths)))
        tried = refused = let_pass = 0
        for path in paths:
            found = parsed_file(path)
            if found is None:
                continue
            for mutant in mutants(*found, count, rnd):
                mutant_tree = parsed(mutant)
                if mutant_tree is None:
                    continue
                tried += 1
                if compiler_refuses(mutant, mutant_tree):
                    refused += 1
                    if not refusable(mutant, mutant_tree):
                        let_pass += 1
                        print(f"MISSED (a mutant of {path}):\n{mutant[:2000]}\n---")
        print(f"{corpus}: {tried} mutants parsed, {refused} refused by the compiler, {let_pass} of those let pass by the walk")
        missed += let_pass
    return missed


if __name__ == "__main__":
    sys.exit(main())
