"""The README stays true: every rule in the table, the commands are the ones CI runs."""

from __future__ import annotations

import re
import subprocess
import sys

from testdata import HANG_GUARD_S, ROOT

from breaklint.check.registry import all_rules

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_rules_table_lists_every_rule() -> None:
    rows = {(m.group(1), m.group(2)) for m in re.finditer(r"^\| (BL\d{3}) \| ([a-z-]+) \|", README, re.M)}
    assert rows == {(rule.code, rule.name) for rule in all_rules()}


def test_rules_table_cites_each_rules_gb_ids() -> None:
    for rule in all_rules():
        row = next(line for line in README.splitlines() if line.startswith(f"| {rule.code} |"))
        for gb_id in rule.gb_ids():
            assert gb_id in row, (rule.code, gb_id)


def test_the_install_is_the_one_ci_runs() -> None:
    """CI runs the README's install; the README adds only PyTorch's CPU index, where the pinned
    CPU build comes from on a machine without it on disk (PyPI's torch==2.13.0 is the CUDA build)."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install = "pip install -c constraints.txt -e '.[test,confirm]'"
    assert install in ci and "python -m pytest" in ci
    (line,) = [line for line in README.splitlines() if install in line]
    fresh = "python3 -m venv .venv && . .venv/bin/activate && "  # a newcomer's machine has no venv
    assert line.startswith(fresh + install + " --extra-index-url https://download.pytorch.org/whl/cpu")
    assert line.endswith("&& python -m pytest")
    pins = [line for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]
    assert pins == ["torch==2.13.0+cpu"] and "`torch==2.13.0+cpu`" in README


def test_readme_stays_short() -> None:
    """Details go to docs/; every page the README links exists."""
    assert len(README.splitlines()) <= 250
    for target in re.findall(r"\]\(((?:docs/|CHANGELOG|LICENSE)[^)#]*)", README):
        assert (ROOT / target).is_file(), target


def test_sample_output_is_what_the_tool_prints() -> None:
    """The README's `$ breaklint check ...` block, run: its lines are the output's first lines,
    `...` stands for the lines left out, and the last line is the summary (time aside)."""
    block = README[README.index("```\n$ breaklint check"):]
    block = block[4:block.index("```", 4)]
    command, *shown = block.rstrip("\n").splitlines()
    args = command.removeprefix("$ breaklint ").split()
    result = subprocess.run([sys.executable, "-m", "breaklint", *args, "--no-cache"], cwd=ROOT,
                            capture_output=True, text=True, timeout=HANG_GUARD_S)
    printed = result.stdout.splitlines()
    cut = shown.index("...")
    assert printed[:cut] == shown[:cut]

    def timeless(line: str) -> str:
        return re.sub(r"\d+\.\d\d s\)$", "T s)", line)

    assert [timeless(line) for line in printed[len(printed) - len(shown[cut + 1:]):]] == [
        timeless(line) for line in shown[cut + 1:]]
    assert result.returncode == 1


def test_every_config_key_is_documented() -> None:
    from breaklint.config import _KEYS

    for key in _KEYS:
        assert re.search(rf"^{re.escape(key)} = ", README, re.M), key
