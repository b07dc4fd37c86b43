"""infra/dists.py reads versions and metadata headers from `.dist-info` folders: the same answers
as importlib.metadata for what is installed here, None for what is not."""

from __future__ import annotations

from importlib import metadata

import pytest

from breaklint.infra import dists


@pytest.mark.parametrize("name", ["libcst", "click", "breaklint", "PyYAML", "pyyaml", "torch"])
def test_versions_are_importlib_metadatas(name: str) -> None:
    try:
        expected: str | None = metadata.version(name)
    except metadata.PackageNotFoundError:
        expected = None
    assert dists.version(name) == expected


def test_headers_are_importlib_metadatas() -> None:
    assert dists.headers("breaklint", "Project-URL") == (metadata.metadata("breaklint").get_all("Project-URL") or [])
    assert dists.headers("breaklint", "Name") == ["breaklint"]


def test_what_is_not_installed() -> None:
    assert dists.version("no-such-distribution-here") is None
    assert dists.headers("no-such-distribution-here", "Project-URL") is None
