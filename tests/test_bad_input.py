"""Bad input never hides good output: each bad file gets its own located BL0xx finding."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from breaklint.rule import Rule
from testdata import HANG_GUARD_S

BAD = "import torch\n\n@torch.compile\ndef f(x):\n    return x.sum().item()\n"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.py").write_text(BAD, encoding="utf-8")
    return tmp_path


def by_path(result) -> dict[str, list[tuple[str, int, int]]]:
    found: dict[str, list[tuple[str, int, int]]] = {}
    for f in result.findings:
        found.setdefault(f.path, []).append((f.code, f.span.start_line, f.span.start_col))
    return found


def test_syntax_error_is_located(tree: Path, check) -> None:
    (tree / "broken.py").write_text("import torch\n\ndef f(x:\n    return x\n", encoding="utf-8")
    found = by_path(check([tree], root=tree))
    assert found["good.py"] == [("BL101", 5, 12)]
    (code, line, _col), = found["broken.py"]
    assert code == "BL001" and line in (3, 4)


def test_not_utf8_points_at_the_bad_byte(tree: Path, check) -> None:
    (tree / "latin.py").write_bytes(b"x = 1\nname = 'caf\xe9'\n")
    found = by_path(check([tree], root=tree))
    assert found["latin.py"] == [("BL002", 2, 12)]
    assert found["good.py"] == [("BL101", 5, 12)]


def test_pep263_declaration_and_bom_are_honoured(tree: Path, check) -> None:
    (tree / "declared.py").write_bytes(b"# -*- coding: latin-1 -*-\nimport torch\n\n@torch.compile\ndef f(x):\n    s = 'caf\xe9'\n    return x.sum().item()\n")
    (tree / "bom.py").write_bytes(b"\xef\xbb\xbf" + BAD.encode())
    found = by_path(check([tree], root=tree))
    assert found["declared.py"] == [("BL101", 7, 12)]
    assert found["bom.py"] == [("BL101", 5, 12)]


def test_binary_empty_and_missing(tree: Path, check) -> None:
    (tree / "blob.py").write_bytes(b"\x00\x01\x02binary")
    (tree / "empty.py").write_bytes(b"")
    found = by_path(check([tree, tree / "missing.py"], root=tree))
    assert [c for c, _, _ in found["blob.py"]] == ["BL003"]
    assert [c for c, _, _ in found["missing.py"]] == ["BL003"]
    assert "empty.py" not in found
    assert found["good.py"] == [("BL101", 5, 12)]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_file(tree: Path, check) -> None:
    locked = tree / "locked.py"
    locked.write_text(BAD)
    locked.chmod(0)
    assert [c for c, _, _ in by_path(check([tree], root=tree))["locked.py"]] == ["BL003"]


def test_broken_symlink(tree: Path, check) -> None:
    (tree / "dangling.py").symlink_to(tree / "nowhere.py")
    found = by_path(check([tree], root=tree))
    assert [c for c, _, _ in found["dangling.py"]] == ["BL003"]
    assert found["good.py"] == [("BL101", 5, 12)]


def test_internal_error_is_contained(tree: Path, check, monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception in one rule on one file becomes BL005; other rules and files still report."""
    (tree / "good.py").write_text(BAD + "    if x.sum() > 0:\n        pass\n", encoding="utf-8")
    (tree / "other.py").write_text(BAD.replace("item", "tolist"), encoding="utf-8")
    from breaklint.rules.tensor_to_scalar import TensorToScalar

    original = TensorToScalar.visit_Call

    def explode_on_good(self: Rule, node) -> None:  # type: ignore[no-untyped-def]
        if self.ctx.file.display == "good.py":
            raise RuntimeError("boom")
        original(self, node)

    monkeypatch.setattr(TensorToScalar, "visit_Call", explode_on_good)
    result = check([tree], root=tree)
    found = by_path(result)
    assert found["good.py"] == [("BL005", 1, 1), ("BL102", 6, 8)]
    assert found["other.py"] == [("BL101", 5, 12)]
    error = [f for f in result.findings if f.code == "BL005"][0]
    assert "in rule BL101 (tensor-to-scalar): RuntimeError: boom" in error.message
    assert "Traceback" in error.details


def test_exit_code_two_on_internal_error(tree: Path) -> None:
    script = (
        "import sys\nfrom breaklint.rules.tensor_to_scalar import TensorToScalar\n"
        "def boom(self, node):\n    raise RuntimeError('boom')\n"
        "TensorToScalar.visit_Call = boom\n"
        "from breaklint.cli import main\nsys.argv = ['breaklint', 'check', '.', '--verbose']\nmain()\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=tree, capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert result.returncode == 2
    assert "BL005" in result.stdout and "RuntimeError: boom" in result.stdout
    assert "Traceback" in result.stdout  # --verbose shows it


CALLER = ("import torch\n\n\ndef helper(x):\n    return x.sum().item()\n\n\n@torch.compile\n"
          "def encode(x):\n    y = x.tolist()\n    return helper(x)\n")


def test_an_error_following_calls_is_contained(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception while following one function's calls (region computation) becomes a BL005 in
    its file; the function keeps its own findings, and the other files are still checked."""
    from breaklint.config import Config
    from breaklint.check.engine import Engine
    from breaklint.check.registry import RuleSet
    from breaklint.analysis.regions import CallResolver

    (tree / "caller.py").write_text(CALLER, encoding="utf-8")
    original = CallResolver.edges

    def explode_in_encode(self, fn, defaults, *args, **kwargs):  # type: ignore[no-untyped-def]
        if fn.qualname == "encode":
            raise RuntimeError("boom")
        return original(self, fn, defaults, *args, **kwargs)

    monkeypatch.setattr(CallResolver, "edges", explode_in_encode)
    config = Config(root=tree)
    result = Engine(config, RuleSet(config)).check([tree])
    found = by_path(result)
    assert found["good.py"] == [("BL101", 5, 12)]
    assert found["caller.py"] == [("BL005", 1, 1), ("BL101", 10, 9)]  # encode's own .tolist(); helper is not reached
    [error] = [f for f in result.findings if f.code == "BL005"]
    assert "while following the calls of `encode`: RuntimeError: boom" in error.message
    assert "Traceback" in error.details


def test_an_error_finding_entry_points_is_contained(tree: Path, check, monkeypatch: pytest.MonkeyPatch) -> None:
    import breaklint.check.engine

    def explode(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")

    monkeypatch.setattr(breaklint.check.engine, "find_entry_points", explode)
    (tree / "broken.py").write_text("def f(x:\n", encoding="utf-8")
    found = by_path(check([tree], root=tree))
    assert found["good.py"] == [("BL005", 1, 1)]  # where the entry points were looked for
    assert [code for code, _, _ in found["broken.py"]] == ["BL001"]  # the other files' own problems still
