"""Does the index's walk see everything Python's compiler may refuse? (builder._Walker.refusable)

The pre-pass compiles a file's tree only where the walk found something the compiler judges
beyond the grammar (scan.compiled_verdict); a text the compiler refuses that the walk let pass
would be checked as valid. This script tries the walk on every text Python's parser takes and its
compiler refuses, drawn from the files given (CPython's Lib/test is the richest source: whole
files, every string constant in them, as written and dedented, every doctest example), and on every file of a corpus it
reports how many files and bytes are still compiled.

    python benchmarks/compiler_gate.py /root/.pyenv/versions/3.11.7/lib/python3.11/test
    python benchmarks/compiler_gate.py --corpus /tmp/torchtree

Exit status 1 when a refused text was let pass (each is printed).
"""

from __future__ import annotations

import argparse
import ast
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sources", nargs="*", type=Path, help="files or folders whose texts the compiler may refuse")
    parser.add_argument("--corpus", type=Path, action="append", default=[], help="a tree: what share is still compiled")
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
    for corpus in args.corpus:
        files = kept = total = kept_bytes = 0
        for path in sorted(corpus.rglob("*.py")):
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            tree = parsed(text)
            if tree is None:
                continue
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


if __name__ == "__main__":
    sys.exit(main())
