"""`check PATHS`: each file under its nearest settings, named files inside their project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from breaklint.cli import cli
from testdata import write_tree

HELPER = "def scale(x):\n    return x * x.sum().item()\n"
MAIN = ("import torch\nfrom helpers import scale\n\n\n@torch.compile\ndef step(x):\n    return scale(x) + 1\n")


def check(cwd: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[dict[str, object]]]:
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(cli, ["check", *args, "--format", "json", "--no-cache", "-j", "1"])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.output)


def test_a_named_helper_is_checked_inside_its_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pre-commit case: only helpers.py is staged; main.py, unchanged, compiles it."""
    write_tree(tmp_path, {"pyproject.toml": "[tool.breaklint]\nassume-forward-compiled = false\n",
                          "helpers.py": HELPER, "main.py": MAIN})
    status, found = check(tmp_path, "helpers.py", monkeypatch=monkeypatch)
    assert status == 1
    assert [(f["path"], f["code"], f["start_line"]) for f in found] == [("helpers.py", "BL101", 2)]
    assert "via main.py:5" in str(found[0]["message"])
    status, found = check(tmp_path, "main.py", monkeypatch=monkeypatch)  # nothing in main.py itself
    assert (status, found) == (0, [])


def test_a_named_file_outside_any_project_is_checked_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path, {"loose/helpers.py": HELPER, "loose/main.py": MAIN})
    monkeypatch.setenv("HOME", str(tmp_path))
    status, found = check(tmp_path / "loose", "helpers.py", "--config", str(_no_forward(tmp_path)),
                          monkeypatch=monkeypatch)
    assert status == 1 and [f["path"] for f in found] == ["helpers.py"]  # --config: its folder is the project


def _no_forward(root: Path) -> Path:
    path = root / "settings.toml"
    path.write_text("assume-forward-compiled = false\n", encoding="utf-8")
    return path


def test_two_sub_projects_keep_their_own_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`check a b` (and `check .` above both) applies each one's [tool.breaklint] to its files."""
    loop = "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x.sum().item()\n"
    write_tree(tmp_path, {"a/pyproject.toml": "[tool.breaklint]\nignore = ['BL101']\n", "a/m.py": loop,
                          "b/pyproject.toml": "[tool.breaklint]\nignore = ['BL106']\n", "b/m.py": loop})
    for args in (("a", "b"), ("b", "a"), (".",)):
        _, found = check(tmp_path, *args, monkeypatch=monkeypatch)
        codes = {(f["path"], f["code"]) for f in found}
        assert codes == {("a/m.py", "BL106"), ("b/m.py", "BL101")}, args


def test_config_overrides_every_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loop = "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x.sum().item()\n"
    write_tree(tmp_path, {"a/pyproject.toml": "[tool.breaklint]\nignore = ['BL101']\n", "a/m.py": loop,
                          "b/m.py": loop, "all.toml": "ignore = ['BL106']\n"})
    _, found = check(tmp_path, "a", "b", "--config", "all.toml", monkeypatch=monkeypatch)
    assert {(f["path"], f["code"]) for f in found} == {("a/m.py", "BL101"), ("b/m.py", "BL101")}


def test_named_files_of_two_projects_are_each_checked_in_their_own(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """No settings anywhere: each named helper is checked inside its own git work tree, where
    its compiling caller lives, not inside the other's."""
    for name in ("one", "two"):
        write_tree(tmp_path / name, {".git/HEAD": "ref: refs/heads/main\n", "helpers.py": HELPER, "main.py": MAIN})
    status, found = check(tmp_path, "one/helpers.py", "two/helpers.py", "--select", "BL101",
                          monkeypatch=monkeypatch)
    assert status == 1
    assert sorted((f["path"], f["message"].split(" via ")[1].split(" ")[0]) for f in found) == [
        ("one/helpers.py", "one/main.py:5"), ("two/helpers.py", "two/main.py:5")]


def test_the_project_of_each_folder_is_looked_up_once(tmp_path: Path) -> None:
    """units.project_root with its memo gives what the walk from each file gives, and asks the
    file system about each folder once (the pre-commit hook may name every file of a tree)."""
    from breaklint.check.units import project_root
    from breaklint.config import Config

    write_tree(tmp_path, {"a/pyproject.toml": "[project]\nname = 'a'\n", "a/b/.git/HEAD": "ref: refs/heads/main\n",
                          "a/b/c/d/x.py": "", "a/b/c/y.py": "", "a/z.py": "", "a/b/w.py": "", "a/e/v.py": ""})
    config = Config(root=tmp_path)
    files = [tmp_path / p for p in ("a/b/c/d/x.py", "a/b/c/y.py", "a/z.py", "a/b/w.py", "a/e/v.py")]
    known: dict[Path, Path | None] = {}
    assert [project_root(f, config, known) for f in files] == [project_root(f, config) for f in files] == [
        tmp_path / "a/b", tmp_path / "a/b", tmp_path / "a", tmp_path / "a/b", tmp_path / "a"]
    assert known[tmp_path / "a/b/c/d"] == known[tmp_path / "a/b/c"] == tmp_path / "a/b"
    assert known[tmp_path / "a/e"] == tmp_path / "a" and tmp_path not in known


def test_each_folders_settings_file_is_looked_for_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The nearest settings of every folder of a tree (units._Settings) are config.find_pyproject's,
    with each folder's own pyproject.toml looked at once however many folders sit below it."""
    from breaklint.check import units
    from breaklint.config import find_pyproject

    write_tree(tmp_path, {"pyproject.toml": "[tool.breaklint]\nignore = ['BL101']\n",
                          "a/pyproject.toml": "[project]\nname = 'a'\n",  # no [tool.breaklint]: not settings
                          "a/b/pyproject.toml": "[tool.breaklint]\nselect = ['BL1']\n",
                          "a/b/c/d/x.py": "", "a/b/c/y.py": "", "a/z.py": "", "a/e/f/v.py": "", "w.py": ""})
    looked: list[Path] = []
    real = units.settings_in

    def counting(directory: Path) -> Path | None:
        looked.append(directory)
        return real(directory)

    monkeypatch.setattr(units, "settings_in", counting)
    settings = units._Settings(lambda config: config, None)
    folders = ["a/b/c/d", "a/b/c", "a", "a/b", "a/e/f", "a/e", "."]
    found = [settings._nearest(tmp_path / folder) for folder in folders]
    assert found == [find_pyproject(tmp_path / folder) for folder in folders] == [
        tmp_path / "a/b/pyproject.toml", tmp_path / "a/b/pyproject.toml", tmp_path / "pyproject.toml",
        tmp_path / "a/b/pyproject.toml", tmp_path / "pyproject.toml", tmp_path / "pyproject.toml",
        tmp_path / "pyproject.toml"]
    assert sorted(looked) == sorted(set(looked))  # each folder once
    assert settings.of(tmp_path / "a/b/c/d/x.py", is_dir=False).select == ("BL1",)
    assert settings.of(tmp_path / "a/e/f/v.py", is_dir=False).ignore == ("BL101",)


def test_a_named_file_and_a_folder_outside_any_project_are_one(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """No settings and no git: `check main.py helpers/` checks the two together, so the compile
    in main.py makes the folder's helper compiled code (checked apart, it was not)."""
    write_tree(tmp_path, {"main.py": MAIN.replace("from helpers import", "from lib.helpers import"),
                          "lib/__init__.py": "", "lib/helpers.py": HELPER})
    monkeypatch.setenv("HOME", str(tmp_path))
    status, found = check(tmp_path, "main.py", "lib", "--select", "BL101", monkeypatch=monkeypatch)
    assert status == 1
    assert [(f["path"], f["start_line"]) for f in found] == [("lib/helpers.py", 2)]
    assert "via main.py:5" in str(found[0]["message"])
