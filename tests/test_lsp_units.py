"""The pieces behind the language server, on their own: positions at the edge, the quick fix's
text edit, the warm project index and `--format lsp`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from breaklint.check.engine import Engine
from breaklint.finding import Span
from breaklint.index.def_lines import line_texts
from breaklint.report.positions import UTF8, UTF16, UTF32, from_code_units, lsp_range, one_based, to_code_units
from breaklint.lsp.workspace import load_project
from testdata import HANG_GUARD_S, ROOT


@pytest.mark.parametrize(("encoding", "expected"), [(UTF16, 5), (UTF8, 8), (UTF32, 4)])
def test_columns_in_each_encoding(encoding: str, expected: int) -> None:
    line = "é😀a = x.item()"  # é: 1/2/1 units, 😀: 2/4/1 units (UTF-16/UTF-8/UTF-32)
    col = 5  # the `=`, 1-based in code points
    assert line[col - 1] == "="
    assert to_code_units(line, col, encoding) == expected  # 0-based offset of the `=`
    assert from_code_units(line, to_code_units(line, col, encoding), encoding) == col


def test_lsp_range_clamps_to_the_document() -> None:
    lines = line_texts("a = 1\r\nb = 'ü'\x0c\n")
    assert lines == ["a = 1", "b = 'ü'\x0c", ""]  # \f is not a line break for LSP
    assert lsp_range(Span(2, 6, 2, 8), lines) == {"start": {"line": 1, "character": 5},
                                                 "end": {"line": 1, "character": 7}}
    past_end = lsp_range(Span(9, 1, 9, 1), lines)  # e.g. a finding on a line an edit removed
    assert past_end["start"] == {"line": 2, "character": 0}
    assert lsp_range(Span(1, 1, 1, 1), []) == {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
    assert one_based(Span(3, 7, 3, 2)) == (3, 7, 3, 7)  # an end never before its start


# --- the quick fix -------------------------------------------------------------------------
@pytest.fixture
def lsp():
    pytest.importorskip("pygls")
    from breaklint.lsp import server as lsp

    return lsp


@pytest.mark.parametrize(("source", "line", "expected"), [
    ("y = x.item()\n", 0, "y = x.item()  # breaklint: ignore[BL101]\n"),
    ("y = x.item()   # why\n", 0, "y = x.item()   # why  # breaklint: ignore[BL101]\n"),
    ("y = x.item()  # breaklint: ignore[BL104] masks\n", 0,
     "y = x.item()  # breaklint: ignore[BL104, BL101] masks\n"),
    ("y = x.item()  # breaklint: ignore[] \n", 0, "y = x.item()  # breaklint: ignore[BL101] \n"),
    ("    y = f('''a\n    b''').item()\n", 0, "    # breaklint: ignore[BL101]\n    y = f('''a\n    b''').item()\n"),
    ("    y = x.item() + \\\n        1\n", 0, "    # breaklint: ignore[BL101]\n    y = x.item() + \\\n        1\n"),
    ("s = '# breaklint: ignore[BL104]'; y = x.item()\n", 0,
     "s = '# breaklint: ignore[BL104]'; y = x.item()  # breaklint: ignore[BL101]\n"),
])
def test_suppression_insertion(lsp, source: str, line: int, expected: str) -> None:
    insertion = lsp.suppression_insertion(source, line, "BL101")
    assert insertion is not None
    lines = source.split("\n")
    target = lines[insertion.line]
    lines[insertion.line] = target[: insertion.col - 1] + insertion.text + target[insertion.col - 1:]
    assert "\n".join(lines) == expected


def test_no_insertion_where_already_silenced(lsp) -> None:
    assert lsp.suppression_insertion("y = x.item()  # breaklint: ignore\n", 0, "BL101") is None
    assert lsp.suppression_insertion("y = x.item()  # breaklint: ignore[BL101]\n", 0, "BL101") is None
    assert lsp.suppression_insertion("y = 1\n", 5, "BL101") is None


def test_inserted_suppression_silences_the_finding(lsp, tmp_path: Path, check) -> None:
    source = "import torch\n\n@torch.compile\ndef f(x):\n    s = '😀'; return x * x.sum().item()  # note\n"
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    (finding,) = check([path], root=tmp_path).findings
    insertion = lsp.suppression_insertion(source, finding.span.start_line - 1, finding.code)
    lines = source.split("\n")
    target = lines[insertion.line]
    lines[insertion.line] = target[: insertion.col - 1] + insertion.text + target[insertion.col - 1:]
    path.write_text("\n".join(lines), encoding="utf-8")
    assert check([path], root=tmp_path).findings == []


# --- the warm project index ------------------------------------------------------------------
def test_project_matches_check_and_reuses_its_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    rechecked: list[str]) -> None:
    """The editor's checks are `check`'s pipeline: the same findings; a second check of the
    same text indexes nothing and runs no rule again; a buffer's edit indexes that file only."""
    from breaklint.check import worker as worker_module

    examples = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", examples)
    monkeypatch.chdir(examples)  # `check` shows paths relative to the working directory
    indexed: list[str] = []
    scan_text = worker_module.scan_text

    def spy(text, digest, module_name, is_package, *rest):  # type: ignore[no-untyped-def]
        indexed.append(module_name)
        return scan_text(text, digest, module_name, is_package, *rest)

    monkeypatch.setattr(worker_module, "scan_text", spy)
    project, error = load_project(examples)
    assert error is None
    files = sorted(examples.rglob("*.py"))
    by_file = project.check(files)
    flat = sorted((f for found in by_file.values() for f in found), key=lambda f: f.sort_key)
    expected = Engine(project.config, project.rules).check([examples]).findings
    assert flat == expected and len(expected) >= 4
    layers = examples / "tinygpt" / "layers.py"
    assert {f.code for f in by_file[layers]} == {"BL101", "BL102"}

    indexed.clear(), rechecked.clear()
    again = project.check([layers])
    assert again[layers] == by_file[layers]
    assert indexed == [] and rechecked == []  # from the session's cache: nothing parsed

    # a buffer replaces the file: only that module is indexed again
    buffered = layers.read_text(encoding="utf-8").replace("q.abs().max().item()", "q.abs().max()")
    in_buffer = project.check([layers], {layers: buffered})
    assert {f.code for f in in_buffer[layers]} == {"BL102"}
    assert indexed == ["layers"] and rechecked == ["tinygpt/layers.py"]


def test_project_sees_disk_changes_and_new_files(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.breaklint]\nassume-forward-compiled = false\n")
    layers = tmp_path / "layers.py"
    layers.write_text("import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n"
                      "    def forward(self, x):\n        return x.sum().item()\n", encoding="utf-8")
    project, error = load_project(tmp_path)
    assert error is None and project.config.assume_forward_compiled is False
    assert project.check([layers])[layers] == []  # nothing compiles Net yet
    (tmp_path / "train.py").write_text("import torch\nfrom layers import Net\nm = torch.compile(Net())\n")
    project.invalidate([tmp_path / "train.py"])  # what a watched-files notification does
    (finding,) = project.check([layers])[layers]
    assert finding.code == "BL101" and "via train.py:3" in finding.message

    unsaved = tmp_path / "new.py"  # open in the editor, never saved: linted from its text
    found = project.check([unsaved], {unsaved: "import torch\n@torch.compile\ndef g(x):\n    return x.tolist()\n"})
    assert [f.code for f in found[unsaved]] == ["BL101"]
    assert [f.code for f in project.check([unsaved])[unsaved]] == ["BL003"]  # closed and not on disk


def test_bad_config_falls_back_with_the_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.breaklint]\nselect = ['BL999']\n")
    project, error = load_project(tmp_path)
    assert error is not None and "BL999" in error
    assert project.config.select == ("BL",)


# --- `--format lsp` ----------------------------------------------------------------------------
def test_format_lsp_one_shot(tmp_path: Path) -> None:
    prefix = "    s = 'ü😀'; return x * "
    (tmp_path / "m.py").write_text(f"import torch\n\n@torch.compile\ndef f(x):\n{prefix}x.sum().item()\n",
                                   encoding="utf-8")
    (tmp_path / "clean.py").write_text("x = 1\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "breaklint", "check", ".", "--format", "lsp"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert result.returncode == 1, result.stderr
    published = json.loads(result.stdout)
    assert list(published) == [(tmp_path / "m.py").as_uri()]
    (diag,) = published[(tmp_path / "m.py").as_uri()]
    assert diag["range"] == {"start": {"line": 4, "character": len(prefix) + 1},
                             "end": {"line": 4, "character": len(prefix) + 1 + len("x.sum().item()")}}
    assert (diag["code"], diag["source"], diag["severity"]) == ("BL101", "breaklint", 2)
    assert diag["codeDescription"]["href"].endswith(("BL101.md", "/BL101"))
    assert diag["data"]["confidence"] == "likely" and diag["data"]["help"]


def test_offset_inside_a_character_is_that_character() -> None:
    assert from_code_units("é😀a", 2, UTF16) == 2  # between the two halves of the surrogate pair
    assert from_code_units("é😀a", 1, UTF8) == 1  # inside é's two bytes
    assert from_code_units("é😀a", 99, UTF16) == 4  # past the end: the end of the line


def test_pygls_stays_optional(tmp_path: Path) -> None:
    """`check` in every format works without pygls; `lsp` says how to get it."""
    blocker = tmp_path / "site" / "sitecustomize.py"
    blocker.parent.mkdir()
    blocker.write_text(
        "import sys\n\nclass _Block:\n    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('pygls', 'lsprotocol'):\n"
        "            raise ImportError(f'blocked: {name}', name=name)\n\nsys.meta_path.insert(0, _Block())\n",
        encoding="utf-8",
    )
    env = {"PYTHONPATH": str(blocker.parent), "PATH": "/usr/bin:/bin"}
    (tmp_path / "m.py").write_text("import torch\n@torch.compile\ndef f(x):\n    return x.item()\n", encoding="utf-8")
    for output in ("lsp", "sarif", "github"):
        result = subprocess.run([sys.executable, "-m", "breaklint", "check", "m.py", "--format", output],
                                cwd=tmp_path, capture_output=True, text=True, env=env, timeout=HANG_GUARD_S)
        assert result.returncode == 1 and "BL101" in result.stdout, result.stderr
    server = subprocess.run([sys.executable, "-m", "breaklint", "lsp"], cwd=tmp_path, capture_output=True,
                            text=True, env=env, timeout=HANG_GUARD_S, stdin=subprocess.DEVNULL)
    assert server.returncode == 2
    assert "pip install 'breaklint[lsp]'" in server.stderr


def test_a_sub_project_keeps_its_own_settings_in_the_editor(tmp_path: Path) -> None:
    """As `check` does: each open file takes the nearest [tool.breaklint] above it."""
    loop = "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x.sum().item()\n"
    (tmp_path / "pyproject.toml").write_text("[tool.breaklint]\nignore = ['BL101']\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pyproject.toml").write_text("[tool.breaklint]\nignore = ['BL106']\n", encoding="utf-8")
    top, sub = tmp_path / "m.py", tmp_path / "sub" / "m.py"
    top.write_text(loop, encoding="utf-8")
    sub.write_text(loop, encoding="utf-8")
    project, error = load_project(tmp_path)
    assert error is None
    found = project.check([top, sub])
    assert [f.code for f in found[top]] == ["BL106"] and [f.code for f in found[sub]] == ["BL101"]
    assert not project.stale()
    (tmp_path / "sub" / "pyproject.toml").write_text("[tool.breaklint]\nignore = ['BL106', 'BL101']\n",
                                                     encoding="utf-8")
    assert project.stale()  # the server loads the workspace again before its next check
