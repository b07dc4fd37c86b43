from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from breaklint.config import Config  # noqa: E402
from breaklint.check.engine import CheckResult, Engine  # noqa: E402
from breaklint.check.registry import RuleSet  # noqa: E402


def run_check(paths: list[Path], root: Path | None = None, **settings: object) -> CheckResult:
    config = Config(root=root or Path.cwd(), **settings)  # type: ignore[arg-type]
    return Engine(config, RuleSet(config)).check(paths)


@pytest.fixture
def check():
    return run_check


@pytest.fixture
def rechecked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the rules ran on (libcst and all), in this process."""
    from breaklint.check import engine as engine_module

    seen: list[str] = []
    original = engine_module._Run.check_file

    def spy(run, index):  # type: ignore[no-untyped-def]
        seen.append(run.sources[index].display)
        return original(run, index)

    monkeypatch.setattr(engine_module._Run, "check_file", spy)
    return seen
