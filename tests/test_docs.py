"""docs/rules/ is what tools/gen_docs.py makes from the rules, and the README links it."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from types import ModuleType

import pytest

from breaklint.check.registry import all_rules
from breaklint.report import ruledoc
from testdata import HANG_GUARD_S, ROOT

GENERATOR = ROOT / "tools" / "gen_docs.py"


@pytest.fixture(scope="module")
def gen_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_docs_are_current() -> None:
    result = subprocess.run([sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert result.returncode == 0, "stale docs, run `python tools/gen_docs.py`:\n" + result.stdout


def test_staleness_is_detected(gen_docs: ModuleType) -> None:
    pages = gen_docs.pages()
    assert gen_docs.stale(pages) == []
    page = gen_docs.DOCS / "BL101.md"
    edited = {**pages, page: pages[page].replace("## How to fix", "## How to fix it")}
    assert gen_docs.stale(edited) == ["docs/rules/BL101.md is out of date"]
    fewer = {path: text for path, text in pages.items() if path != page}
    assert gen_docs.stale(fewer) == ["docs/rules/BL101.md has no rule"]


def test_a_page_per_rule_from_its_docstring() -> None:
    for rule in all_rules():
        page = (ROOT / "docs" / "rules" / f"{rule.code}.md").read_text(encoding="utf-8")
        assert page.startswith(f"# {rule.code} {rule.name}\n")
        assert ruledoc.markdown(rule) in page
        for example in rule.bad:
            assert example.rstrip("\n") in page
    index = (ROOT / "docs" / "rules" / "README.md").read_text(encoding="utf-8")
    assert re.findall(r"\]\((BL\d{3})\.md\)", index) == [rule.code for rule in all_rules()]


def test_readme_links_the_rule_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\((docs/rules/[^)#]+)", readme)
    assert "docs/rules/README.md" in targets
    assert all((ROOT / target).is_file() for target in targets), targets


def test_links_between_the_docs_resolve() -> None:
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#]+)", page.read_text(encoding="utf-8")):
            if "://" not in target:
                assert (page.parent / target).exists(), f"{page.relative_to(ROOT)}: {target}"
