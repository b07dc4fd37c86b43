"""Write docs/rules/BLxxx.md (one page a rule) and docs/rules/README.md (the index) from the rule
catalog: the docstrings, facts and examples in rules/*.py are the only source.

    python tools/gen_docs.py           # write the pages (and delete pages of removed rules)
    python tools/gen_docs.py --check   # exit 1 and list what is stale (tests/test_docs.py)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from breaklint.check.registry import all_rules  # noqa: E402
from breaklint.report import ruledoc  # noqa: E402

DOCS = ROOT / "docs" / "rules"


def pages() -> dict[Path, str]:
    rules = all_rules()
    generated = {DOCS / f"{rule.code}.md": ruledoc.page(rule) for rule in rules}
    generated[DOCS / "README.md"] = ruledoc.index(rules)
    return generated


def stale(generated: dict[Path, str]) -> list[str]:
    """Pages that differ from what the rules say, are missing, or belong to no rule."""
    problems = [
        f"{path.relative_to(ROOT)} is {'out of date' if path.exists() else 'missing'}"
        for path, text in generated.items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]
    if DOCS.is_dir():
        problems += [f"{extra.relative_to(ROOT)} has no rule" for extra in sorted(DOCS.glob("*.md"))
                     if extra not in generated]
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report stale pages instead of writing them")
    args = parser.parse_args()
    generated = pages()
    problems = stale(generated)
    if args.check:
        for problem in problems:
            print(problem)
        if problems:
            print("run: python tools/gen_docs.py")
        return 1 if problems else 0
    DOCS.mkdir(parents=True, exist_ok=True)
    for path, text in generated.items():
        path.write_text(text, encoding="utf-8", newline="\n")
    for extra in DOCS.glob("*.md"):
        if extra not in generated:
            extra.unlink()
    print(f"wrote {len(generated)} pages under {DOCS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
