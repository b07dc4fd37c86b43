"""`[tool.breaklint]`: discovery, validation, and every key changing some output."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from breaklint.config import ConfigError, find_pyproject, load_config
from breaklint.check.engine import Engine
from breaklint.check.registry import RuleSet

BAD = "import torch\n\n@torch.compile\ndef f(x):\n    return x.sum().item()\n"
FORWARD = "from torch import nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return x.sum().item()\n"
PLAIN = "def step(x):\n    return x.sum().item()\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bad.py").write_text(BAD, encoding="utf-8")
    (tmp_path / "src" / "net.py").write_text(FORWARD, encoding="utf-8")
    (tmp_path / "src" / "plain.py").write_text(PLAIN, encoding="utf-8")
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "out.py").write_text(BAD, encoding="utf-8")
    return tmp_path


def findings(root: Path, settings: str, paths: tuple[str, ...] = (".",)) -> set[tuple[str, str]]:
    (root / "pyproject.toml").write_text("[tool.breaklint]\n" + textwrap.dedent(settings), encoding="utf-8")
    config = load_config(find_pyproject(root / paths[0]))
    result = Engine(config, RuleSet(config)).check([root / p for p in paths])
    return {(f.path, f.code) for f in result.findings}


BASELINE = {("src/bad.py", "BL101"), ("src/net.py", "BL101"), ("gen/out.py", "BL101")}


def test_baseline(project: Path) -> None:
    assert findings(project, "") == BASELINE


@pytest.mark.parametrize("settings,expected", [
    ('select = ["BL2"]', set()),
    ('ignore = ["BL1"]', set()),
    ('per-file-ignores = { "gen/*" = ["BL101"] }', BASELINE - {("gen/out.py", "BL101")}),
    ('exclude = ["gen"]', BASELINE - {("gen/out.py", "BL101")}),
    ('extend-exclude = ["src/net.py"]', BASELINE - {("src/net.py", "BL101")}),
    ("assume-forward-compiled = false", BASELINE - {("src/net.py", "BL101")}),
    ('entry-points = ["plain:step"]', BASELINE | {("src/plain.py", "BL101")}),
    ('scope = "all"', BASELINE | {("src/plain.py", "BL101")}),
])
def test_each_key_changes_the_findings(project: Path, settings: str, expected: set) -> None:
    assert findings(project, settings) == expected


def test_target_torch_changes_the_cited_ids(project: Path) -> None:
    for version, ids in (("2.13", ("GB0124",)), ("2.7", ())):
        (project / "pyproject.toml").write_text(f'[tool.breaklint]\ntarget-torch = "{version}"\n')
        config = load_config(project / "pyproject.toml")
        result = Engine(config, RuleSet(config)).check([project / "src" / "bad.py"])
        assert [f.gb_ids for f in result.findings] == [ids]
        assert "Unsupported Tensor.item()" in result.findings[0].message


def test_target_python_decides_a_while_test_escalation(project: Path) -> None:
    # Python 3.12 re-tests a `while` condition with a forward jump and a jump back after it,
    # which Dynamo reads as a break in the loop (GB7000); 3.11's backward conditional jump is not.
    (project / "src" / "loop.py").write_text(
        "import torch\n\n@torch.compile\ndef f(x):\n    while x.abs().sum() < 10:\n        x = x * 2\n    return x\n")
    said = {}
    for python in ("3.11", "3.12"):
        (project / "pyproject.toml").write_text(f'[tool.breaklint]\ntarget-python = "{python}"\n')
        config = load_config(project / "pyproject.toml")
        [finding] = Engine(config, RuleSet(config)).check([project / "src" / "loop.py"]).findings
        said[python] = finding.message
    assert "GB7000" in said["3.12"] and "GB7000" not in said["3.11"]


def test_excluded_file_named_explicitly_is_checked_unless_force_exclude(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.breaklint]\nexclude = ["gen"]\n')
    config = load_config(project / "pyproject.toml")
    engine = Engine(config, RuleSet(config))
    assert [f.path for f in engine.check([project / "gen" / "out.py"]).findings] == ["gen/out.py"]
    assert engine.check([project / "gen" / "out.py"], force_exclude=True).findings == []


def test_found_by_walking_up(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.breaklint]\nselect = ["BL2"]\n')
    assert find_pyproject(project / "src" / "bad.py") == project / "pyproject.toml"
    (project / "src" / "pyproject.toml").write_text("[project]\nname = 'x'\n")  # no table: skipped
    assert find_pyproject(project / "src") == project / "pyproject.toml"


@pytest.mark.parametrize("settings,message", [
    ("colour = 1", "unknown key 'colour'"),
    ('select = "BL1"', "select: expected a list of strings"),
    ("ignore = [1]", "ignore: expected a list of strings"),
    ('assume-forward-compiled = "yes"', "assume-forward-compiled: expected true or false"),
    ('target-torch = "latest"', "target-torch: not a torch version"),
    ("target-torch = 2.13", "target-torch: expected a version string"),
    ('target-python = "2.7"', "target-python: not a Python version"),
    ('scope = "some"', "scope: expected \"compiled\" or \"all\""),
    ('per-file-ignores = ["x"]', "per-file-ignores: expected a table"),
    ("select = [", "invalid TOML"),
])
def test_bad_config_is_one_clear_error(project: Path, settings: str, message: str) -> None:
    path = project / "pyproject.toml"
    path.write_text("[tool.breaklint]\n" + settings + "\n")
    with pytest.raises(ConfigError) as error:
        RuleSet(load_config(path))
    assert str(path) in str(error.value) and message in str(error.value)


def test_unknown_rule_codes_are_config_errors(project: Path) -> None:
    path = project / "pyproject.toml"
    for settings in ('select = ["BL999"]', 'ignore = ["no-such-rule"]', 'per-file-ignores = { "a.py" = ["BLX"] }'):
        path.write_text("[tool.breaklint]\n" + settings + "\n")
        with pytest.raises(ConfigError, match="unknown rule code or name"):
            RuleSet(load_config(path))


def test_explicit_config_without_table(project: Path) -> None:
    path = project / "other.toml"
    path.write_text('select = ["BL2"]\n')  # a plain TOML file holds the keys at top level
    assert load_config(path, explicit=True).select == ("BL2",)
    path = project / "pyproject.toml"
    path.write_text("[project]\nname = 'x'\n")
    with pytest.raises(ConfigError, match="no \\[tool.breaklint\\] table"):
        load_config(path, explicit=True)
