"""libcst's node checks are off only in breaklint's own processes (infra/trusted_nodes.py)."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import pytest

from breaklint.infra.deferred import defer, when_imported

ROOT = Path(__file__).resolve().parent.parent
BAD_NAME = 'import libcst\ntry:\n    libcst.Name("not a name")\n    print("unchecked")\nexcept libcst.CSTValidationError:\n    print("checked")\n'


def test_importing_breaklint_keeps_libcsts_checks() -> None:
    code = "import breaklint.cli, breaklint.check.engine\n" + BAD_NAME
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "checked"


def test_the_command_line_turns_them_off() -> None:
    code = ("import sys\nfrom breaklint.cli import main\nsys.argv = ['breaklint', '--version']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n" + BAD_NAME)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip().splitlines()[-1] == "unchecked"


def test_when_imported_waits_for_a_deferred_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "late_module.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "late_module", raising=False)
    seen: list[types.ModuleType] = []
    defer("late_module")
    when_imported("late_module", seen.append)
    assert seen == []  # not imported yet
    import late_module  # type: ignore[import-not-found]

    assert late_module.VALUE == 1 and len(seen) == 1 and seen[0].VALUE == 1
    when_imported("late_module", seen.append)  # imported: at once
    assert len(seen) == 2
    monkeypatch.delitem(sys.modules, "late_module")
