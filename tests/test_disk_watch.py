"""Editors without file watchers (Neovim registers none by default): the language server compares
the settings files' and the listed directories' stamps before each run (breaklint/disk_watch.py).

No clock is involved: before a watch is taken, the test sets every stamp it will compare to a
fixed old time (os.utime), so whatever the next change writes differs from it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from breaklint.disk_watch import DiskWatch, settings_files
from breaklint.files import DEFAULT_EXCLUDE
from breaklint.workspace import load_project

OLD = (1_000_000_000, 1_000_000_000)  # 2001, in ns: older than anything written now
NET = ("import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n"
       "    def forward(self, x):\n        return x.sum().item()\n")
TRAIN = "import torch\nfrom layers import Net\nm = torch.compile(Net())\n"
STRICT = "[tool.breaklint]\nassume-forward-compiled = false\n"


def age(*paths: Path) -> None:
    for path in paths:
        os.utime(path, ns=OLD)


def age_tree(root: Path) -> None:
    for folder, _, files in os.walk(root):
        age(Path(folder), *(Path(folder) / name for name in files))


def watch(root: Path) -> DiskWatch:
    age_tree(root)
    return DiskWatch(root, root, DEFAULT_EXCLUDE)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "sub" / "m.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / ".git").mkdir()
    return tmp_path


def test_nothing_changed(tree: Path) -> None:
    seen = watch(tree)
    assert not seen.tree_changed() and not seen.settings_changed()
    (tree / "pkg" / "sub" / "m.py").write_text("x = 22\n", encoding="utf-8")  # an edit in place:
    assert not seen.tree_changed()  # ... the workspace compares each file's own stamp


@pytest.mark.parametrize("change", ["create", "delete", "rename", "new folder"])
def test_files_created_deleted_renamed(tree: Path, change: str) -> None:
    seen = watch(tree)
    sub = tree / "pkg" / "sub"
    if change == "create":
        (sub / "new.py").write_text("y = 2\n", encoding="utf-8")
    elif change == "delete":
        (sub / "m.py").unlink()
    elif change == "rename":
        (sub / "m.py").rename(sub / "n.py")
    else:
        (tree / "pkg" / "more").mkdir()
    assert seen.tree_changed()
    assert not seen.tree_changed()  # compared with the new listing from then on


def test_a_folder_made_later_is_watched_too(tree: Path) -> None:
    seen = watch(tree)
    (tree / "later").mkdir()
    assert seen.tree_changed()
    age(tree / "later", tree)
    seen = DiskWatch(tree, tree, DEFAULT_EXCLUDE)
    (tree / "later" / "m.py").write_text("z = 3\n", encoding="utf-8")
    assert seen.tree_changed()


def test_excluded_folders_are_not_watched(tree: Path) -> None:
    seen = watch(tree)
    (tree / ".git" / "index.py").write_text("", encoding="utf-8")
    assert not seen.tree_changed()


@pytest.mark.parametrize("change", ["create", "edit", "delete", "in a parent"])
def test_settings_created_edited_deleted(tree: Path, change: str) -> None:
    project = tree / "pkg"
    if change in ("edit", "delete"):
        (project / "pyproject.toml").write_text(STRICT, encoding="utf-8")
    seen = watch(project)
    if change == "create":
        (project / "pyproject.toml").write_text(STRICT, encoding="utf-8")
    elif change == "edit":
        (project / "pyproject.toml").write_text(STRICT.replace("false", "true "), encoding="utf-8")
    elif change == "delete":
        (project / "pyproject.toml").unlink()
    else:
        (tree / "pyproject.toml").write_text(STRICT, encoding="utf-8")
    assert seen.settings_changed()
    assert tree / "pyproject.toml" in settings_files(project)


def test_the_workspace_lists_again_when_a_file_appears(tmp_path: Path) -> None:
    """Without any invalidate() (no watched-files notification): a train.py created on disk
    compiles the model, and the next check says so."""
    (tmp_path / "pyproject.toml").write_text(STRICT, encoding="utf-8")
    layers = tmp_path / "layers.py"
    layers.write_text(NET, encoding="utf-8")
    age_tree(tmp_path)
    project, error = load_project(tmp_path)
    assert error is None
    assert project.check([layers])[layers] == []
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    (finding,) = project.check([layers])[layers]
    assert finding.code == "BL101" and "via train.py:3" in finding.message
    (tmp_path / "train.py").unlink()
    assert project.check([layers])[layers] == []


def test_the_workspace_reads_a_file_edited_on_disk(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(STRICT, encoding="utf-8")
    layers, train = tmp_path / "layers.py", tmp_path / "train.py"
    layers.write_text(NET, encoding="utf-8")
    train.write_text(TRAIN.replace("torch.compile(Net())", "Net()"), encoding="utf-8")
    age_tree(tmp_path)
    project, _ = load_project(tmp_path)
    assert project.check([layers])[layers] == []
    train.write_text(TRAIN, encoding="utf-8")
    assert [f.code for f in project.check([layers])[layers]] == ["BL101"]


def test_the_server_loads_settings_again(tmp_path: Path) -> None:
    """The language server's hook (lsp.Linter._check): a project whose settings files changed is
    loaded again before the run."""
    pytest.importorskip("pygls")
    from breaklint.lsp import Linter

    layers = tmp_path / "layers.py"
    layers.write_text(NET, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(STRICT, encoding="utf-8")
    age_tree(tmp_path)
    linter = Linter.__new__(Linter)  # the check alone: no server, no event loop
    linter.projects = {}
    findings, error = linter._check(tmp_path, [layers], {})
    assert (findings[layers], error) == ([], None)
    first = linter.projects[tmp_path]
    (tmp_path / "pyproject.toml").write_text("[tool.breaklint]\n", encoding="utf-8")
    findings, error = linter._check(tmp_path, [layers], {})
    assert [f.code for f in findings[layers]] == ["BL101"] and error is None
    assert linter.projects[tmp_path] is not first
    (tmp_path / "pyproject.toml").write_text("[tool.breaklint]\nselect = ['BL999']\n", encoding="utf-8")
    findings, error = linter._check(tmp_path, [layers], {})
    assert error is not None and "BL999" in error  # shown to the user; the defaults are used
    same = linter.projects[tmp_path]
    linter._check(tmp_path, [layers], {})
    assert linter.projects[tmp_path] is same  # nothing changed: the warm project is kept
