"""The collector's setting is the process's, not the engine's (issue #13: global state at the
process entry points): `breaklint check` pauses it around the check and gives it back, and the
engine run in-process by a library caller leaves it as it found it."""

from __future__ import annotations

import gc
from pathlib import Path

from click.testing import CliRunner

from breaklint.check.engine import Engine
from breaklint.cli import cli
from testdata import check_tree

MODEL = "import torch\n\n@torch.compile\ndef f(x):\n    return x.item()\n"


def _project(tmp_path: Path) -> Path:
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    return tmp_path


def test_the_command_pauses_the_collector_for_the_check_and_gives_it_back(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    seen: list[bool] = []
    real = Engine.check

    def check(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Engine, "check", check)
    assert gc.isenabled()
    result = CliRunner().invoke(cli, ["check", str(_project(tmp_path)), "--no-cache", "-j", "1", "-q"])
    assert result.exit_code == 1, result.output  # the .item() is found
    assert seen == [False]  # paused while the engine ran
    assert gc.isenabled()  # and given back


def test_the_engine_leaves_the_collector_as_it_found_it(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    calls: list[str] = []
    monkeypatch.setattr(gc, "disable", lambda: calls.append("disable"))
    monkeypatch.setattr(gc, "enable", lambda: calls.append("enable"))
    found = check_tree(_project(tmp_path)).findings  # in this process, one job
    assert [f.code for f in found] == ["BL101"]
    assert calls == []  # neither switched off nor on by the engine
    assert gc.isenabled()
