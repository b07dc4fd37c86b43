"""breaklint's own addresses, written once: `[project.urls]` in pyproject.toml, read back from the
installed package's metadata. Where breaklint runs from a tree that was never installed there are
none, and what would link to them (SARIF's helpUri, a finding's `url`) is left out."""

from __future__ import annotations

from functools import lru_cache

from breaklint.infra import dists

REPOSITORY = "Repository"
DOCS_BRANCH = "main"  # the rule pages are read on the default branch


@lru_cache(maxsize=1)  # the metadata of the running breaklint cannot change under it; one read a process
def project_urls() -> dict[str, str]:
    entries = dists.headers("breaklint", "Project-URL") or []
    return {label.strip(): url.strip() for label, _, url in (entry.partition(",") for entry in entries)}


def repository() -> str:
    return project_urls().get(REPOSITORY, "").rstrip("/")


def in_repository(path: str) -> str:
    """The page of a file of the repository (`docs/rules/BL101.md`), or "" when there is no repository URL."""
    base = repository()
    return f"{base}/blob/{DOCS_BRANCH}/{path}" if base else ""


def rule_page(code: str) -> str:
    return in_repository(f"docs/rules/{code}.md")
