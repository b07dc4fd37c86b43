"""Issue 18, item 1: `python -m breaklint` imports nothing from the folder it runs in.

`python -m` puts the working directory first on sys.path and imports the package before its
`__main__` could take it off: `breaklint/__init__.py` imported `dataclasses`, `typing`, ... from
there, so a `dataclasses.py` in the checked tree ran. Here every module that a run imports (found
by `python -X importtime`, in the main process and in the `--jobs` workers, standard library and
third-party alike) is planted in the working directory as a file that writes a marker when
imported; the same runs then leave no marker, and still report the tree's finding."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from testdata import HANG_GUARD_S

MODEL = "import torch\n\n@torch.compile\ndef f(x):\n    return x.sum().item()\n"
# Enough files that the pre-pass and the rules both run in a pool of workers (engine.py: 64).
COPIES = 70
RUNS = [
    ["check", "--jobs", "2", "--format", "sarif", "."],  # fills the cache
    ["check", "--jobs", "2", "--format", "lsp", "."],  # answered from it
    ["check", "--jobs", "2", "--no-cache", "--format", "github", "."],
    ["check", "--jobs", "1", "--no-cache", "--format", "text", "--statistics", "."],
    ["rules"],
]
_IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*([\w.]+)\s*$", re.MULTILINE)


def tree(root: Path) -> Path:
    root.mkdir()
    for n in range(COPIES):
        (root / f"model_{n}.py").write_text(MODEL, encoding="utf-8")
    return root


def python_m(args: list[str], cwd: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    env["XDG_CACHE_HOME"] = str(cwd.parent / "xdg")  # the cache key, outside the tree
    return subprocess.run([sys.executable, *flags, "-m", "breaklint", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=HANG_GUARD_S, stdin=subprocess.DEVNULL)


def imported_names(cwd: Path) -> set[str]:
    """The top-level name of every module these runs import, as -X importtime lists them."""
    names: set[str] = set()
    for args in RUNS:
        done = python_m(args, cwd, "-X", "importtime")
        assert done.returncode in (0, 1), done.stderr[-3000:]
        names.update(name.split(".")[0] for name in _IMPORTED.findall(done.stderr))
    return names


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the workers are forked where this runs in CI")
def test_python_dash_m_imports_nothing_from_the_working_directory(tmp_path: Path) -> None:
    names = imported_names(tree(tmp_path / "measured"))
    # What the issue saw imported from the tree, and what the workers and the cache need.
    assert {"dataclasses", "typing", "ast", "inspect", "tokenize", "copy", "dis", "multiprocessing", "pickle",
            "hashlib", "tomllib", "json", "click", "libcst"} <= names, sorted(names)
    planted = sorted(name for name in names - {"breaklint"} if name.isidentifier())
    planted.append("__future__")  # a `from __future__ import` imports it too
    hostile = tree(tmp_path / "hostile")
    markers = tmp_path / "markers"
    markers.mkdir()
    for name in planted:
        (hostile / f"{name}.py").write_text(f"open({str(markers / name)!r}, 'w').close()\n", encoding="utf-8")
    for args in RUNS:
        done = python_m(args, hostile)
        assert done.returncode == (0 if args == ["rules"] else 1), (args, done.stderr[-3000:])
        assert "Traceback" not in done.stderr, done.stderr[-3000:]
        if "text" in args:  # it did look: every copy's finding
            assert done.stdout.split() == [str(COPIES), "BL101", "tensor-to-scalar"], done.stdout
    imported = sorted(p.name for p in markers.iterdir())
    assert imported == [], f"imported from the working directory ({len(planted)} planted)"
