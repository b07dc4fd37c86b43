"""Editors without file watchers (Neovim registers none by default): every check of the language
server reads the tree again and compares the settings file's stamp (lsp/workspace.py, `stale`).

No clock is involved: before a watch is taken, the test sets every stamp it will compare to a
fixed old time (os.utime), so whatever the next change writes differs from it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from breaklint.lsp.workspace import load_project

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
    """The language server's hook (server.Linter._check): a project whose settings file changed
    is loaded again before the run."""
    pytest.importorskip("pygls")
    from breaklint.lsp.server import Linter

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
