"""files.Excluder (patterns compiled once) answers exactly as fnmatch per pattern and component."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest

from breaklint.infra.files import DEFAULT_EXCLUDE, discover, display_path, is_excluded

TREE = [
    "pkg/__init__.py", "pkg/model.py", "pkg/build/gen.py", "pkg/tests/data/x.py", "pkg/tests/test_a.py",
    "scripts/legacy_one.py", "scripts/new.py", "third_party/lib/mod.py", "a.egg-info/setup.py",
    "pkg/sub/__pycache__/c.py", "docs/conf.pyi", "x/y/z/deep.py", "notes.txt",
]
PATTERNS = [
    DEFAULT_EXCLUDE,
    ("tests/data", "scripts/legacy_*.py"),
    ("pkg/tests/*", "third_party", "*.pyi"),
    ("pkg/tests/data/", "x/y"),
    ("[ab]*", "?ocs"),
    (),
]


def reference(path: Path, root: Path, patterns: tuple[str, ...], below: Path | None) -> bool:
    """The original is_excluded: fnmatch per pattern, per component."""
    relative = display_path(path, root)
    parts = display_path(path, below).split("/") if below is not None else relative.split("/")
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if "/" in pattern:
            if fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(relative, pattern + "/*"):
                return True
        elif any(fnmatch.fnmatchcase(part, pattern) for part in parts):
            return True
    return False


@pytest.mark.parametrize("patterns", PATTERNS, ids=lambda p: ",".join(p)[:40] or "none")
@pytest.mark.parametrize("top", ["", "pkg", "x/y"])
def test_discovery_matches_fnmatch(tmp_path: Path, patterns: tuple[str, ...], top: str) -> None:
    for name in TREE:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n", encoding="utf-8")
    start = tmp_path / top if top else tmp_path
    found, problems = discover([start], tmp_path, patterns, force_exclude=False)
    assert not problems
    expected = []
    for path in sorted(start.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".pyi"):
            # a file is found when neither it nor a directory on the way down from `start` is excluded
            chain = [path, *[p for p in path.parents if p != start and start in p.parents]]
            if not any(reference(p, tmp_path, patterns, start) for p in chain):
                expected.append(path)
    assert found == expected
    for path in (tmp_path / name for name in TREE):
        assert is_excluded(path, tmp_path, patterns) == reference(path, tmp_path, patterns, None), path


def test_display_path_is_relative_to() -> None:
    """display_path reads POSIX paths by their text: the same answer as pathlib's relative_to."""
    from breaklint.infra.files import display_path

    def reference(path: Path, root: Path) -> str:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            return path.as_posix()

    paths = ["/a/b/c.py", "/a/bc.py", "/a/b", "/a", "/", "a/b.py", "a", ".", "/x/y", "b/c", "../a/b.py", "a/./b.py"]
    roots = ["/a", "/a/b", "/", ".", "a", "/x/y", "..", "/a/b/c.py", "b", "/a/"]
    for path in paths:
        for root in roots:
            assert display_path(Path(path), Path(root)) == reference(Path(path), Path(root)), (path, root)


def test_discovered_files_come_in_paths_order(tmp_path: Path) -> None:
    """discover sorts by each path's parts, which is pathlib's own order: `a/b.py` before
    `a-b.py`, where the paths' text would put it after."""
    names = ["a/b.py", "a-b.py", "a.py", "a/a/z.py", "a0.py", "A.py", "ab/c.py", "a b.py", "a/b/c.py"]
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    found, problems = discover([tmp_path, tmp_path / "a.py", tmp_path / "missing.py"], tmp_path, (), False)
    assert found == sorted(tmp_path / name for name in names)
    assert found != sorted(found, key=str)  # the text's order differs here
    assert [problem.code for _, problem in problems] == ["BL003"]
