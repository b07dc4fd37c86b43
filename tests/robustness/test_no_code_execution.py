"""Issue 6, item 4: `check`, `rule` and the language server never execute the code they look at:
no import of it, no eval, no unpickling of what the tree holds, nothing of the tree on sys.path.

A tree is planted with files that, if imported or executed in any way, write a marker file:
module-level code, `__init__.py`, `conftest.py`, `sitecustomize.py`/`usercustomize.py`, a `.pth`
file, modules named like breaklint's own imports (`click`, `libcst`, `tomllib`) and like the
libraries it must never import (`torch`, `numpy`, `pygls`), an example provider, and a poisoned
`.breaklint_cache/`. Each command runs there; no marker may appear."""

from __future__ import annotations

import hashlib
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from .support import assert_no_crash, breaklint_command, run_cli
from testdata import HANG_GUARD_S

MARKERS = "markers"
PLANTED = [
    "model.py", "pkg/__init__.py", "pkg/layers.py", "conftest.py", "sitecustomize.py", "usercustomize.py",
    "click.py", "libcst.py", "tomllib.py", "torch.py", "numpy.py", "pygls.py", "breaklint_examples.py",
    "setup.py", "__main__.py",
]


def _payload(root: Path, name: str) -> str:
    marker = root / MARKERS / name.replace("/", "_")
    return f"open({str(marker)!r}, 'w').write('executed')\n"


class _Poison:
    """Unpickling this writes the marker (what a hostile `.breaklint_cache/` in a cloned repo holds)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (exec, (f"open({str(self.path)!r}, 'w').write('unpickled')",))


def _poison_cache(root: Path) -> None:
    """Packs laid out as breaklint/infra/cache.py writes them (magic, blake2b-16 of the body, pickle):
    the checksum cannot protect anything, since anyone can compute it."""
    cache = root / ".breaklint_cache"
    cache.mkdir()
    for name in ("facts.pack", "regions.pack", "findings.pack"):
        body = pickle.dumps(("salt", _Poison(root / MARKERS / f"cache_{name}")))
        (cache / name).write_bytes(b"BREAKLINT-CACHE\n" + hashlib.blake2b(body, digest_size=16).digest() + body)
    (cache / ".gitignore").write_text("*\n")


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    (tmp_path / MARKERS).mkdir()
    (tmp_path / "pkg").mkdir()
    for name in PLANTED:
        (tmp_path / name).write_text("import torch\n" + _payload(tmp_path, name), encoding="utf-8")
    with (tmp_path / "model.py").open("a", encoding="utf-8") as model:
        model.write("from pkg.layers import helper\n\n@torch.compile\ndef step(x):\n    return helper(x).item()\n")
    with (tmp_path / "pkg" / "layers.py").open("a", encoding="utf-8") as layers:
        layers.write("def helper(x):\n    return x.sum()\n")
    with (tmp_path / "breaklint_examples.py").open("a", encoding="utf-8") as examples:
        examples.write("import breaklint\n\n@breaklint.example\ndef provider():\n    " + _payload(tmp_path, "provider"))
    (tmp_path / "evil.pth").write_text("import os; " + _payload(tmp_path, "pth"), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.breaklint]\nentry-points = ["model:step", "pkg.layers:helper"]\n',
                                            encoding="utf-8")
    return tmp_path


def executed(root: Path) -> list[str]:
    return sorted(p.name for p in (root / MARKERS).iterdir())


def test_check_executes_nothing(planted: Path) -> None:
    run = run_cli(["check", "--format", "json", "."], cwd=planted)
    assert_no_crash(run)
    assert ("model.py", "BL101", 7, 12) in {(p, c, line, col) for p, c, line, col in run.found()}  # it did look
    assert executed(planted) == []


def test_check_with_jobs_and_named_files_executes_nothing(planted: Path) -> None:
    run = run_cli(["check", "--jobs", "2", "--scope", "all", *[p for p in PLANTED], "evil.pth"], cwd=planted)
    assert run.returncode in (1, 2)
    assert executed(planted) == []


def test_a_poisoned_cache_is_not_unpickled(planted: Path) -> None:
    _poison_cache(planted)
    run = run_cli(["check", "."], cwd=planted)
    assert run.returncode in (1, 2)
    assert executed(planted) == []


def test_rule_and_rules_execute_nothing(planted: Path) -> None:
    for args in (["rule", "tensor-to-scalar"], ["rules"]):
        run = run_cli(args, cwd=planted)
        assert run.returncode == 0, run.stderr
    assert executed(planted) == []


def test_python_dash_m_executes_nothing(planted: Path) -> None:
    completed = subprocess.run([sys.executable, "-m", "breaklint", "check", "."], cwd=planted,
                               capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert completed.returncode in (1, 2)
    assert executed(planted) == []


def test_language_server_executes_nothing(planted: Path) -> None:
    pytest.importorskip("pygls")
    from .lsp_client import RawLsp

    server = RawLsp(planted)
    try:
        server.initialize(planted)
        uri = server.open(planted / "model.py")
        codes = [d["code"] for d in server.diagnostics(uri)]
        assert "BL101" in codes  # it did look
        for name in ("conftest.py", "pkg/__init__.py", "breaklint_examples.py"):
            server.diagnostics(server.open(planted / name))
        server.notify("workspace/didChangeWatchedFiles", {"changes": [
            {"uri": (planted / "pkg" / "layers.py").as_uri(), "type": 2}]})
        assert server.diagnostics(uri) is not None  # re-linted after the change
        assert server.shutdown() == 0
    finally:
        server.close()
    assert executed(planted) == []


def test_console_script_is_what_users_run() -> None:
    """The tests above drive the installed `breaklint` script (sys.path[0] is its own folder),
    the way users, editors and pre-commit start it."""
    command = breaklint_command()
    assert command[0].endswith("breaklint"), command
