"""Issue 18, item 8: one text, one place, one verdict, whatever the format or the front end.

- `cache[0] = cache[1] = cache[2] = x` gave three identical BL201s (one per target);
- `--format lsp` put a BL002 at 0:0 where json, sarif and github said 3:6 (the file does not
  decode, and its lines were taken as none), and BL002's column counted bytes, not code points;
- a text with a NUL byte got a BL101 from the language server and a BL003 from `check`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .support import BAD, run_cli

CHAINED = ("import torch\n\ncache = [0, 0, 0]\n\n@torch.compile\ndef f(x):\n"
           "    cache[0] = cache[1] = cache[2] = x\n    return x\n")
# (bytes, the BL002's line and column in code points, its LSP character in UTF-16 units)
UNDECODABLE = [
    (b"# ok\nx = 1\ny = \"\xff\xfe\"\n", 3, 6, 5),
    (b"\xc3\xa9 = 1\ny = \"\xc3\xa9\xff\"\n", 2, 7, 6),  # an e-acute before: one code point, two bytes
    (b"y = \"\xf0\x9f\x98\x80\xff\"\n", 1, 7, 7),  # an emoji before: one code point, two UTF-16 units
    (b"\xef\xbb\xbfy = \"\xff\"\n", 1, 6, 5),  # after a BOM, which no editor shows
]


def formats(root: Path, *args: str) -> dict[str, str]:
    shown = {}
    for fmt in ("json", "sarif", "github", "lsp"):
        run = run_cli(["check", "--no-cache", "--format", fmt, *args], cwd=root)
        assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr[-2000:]
        shown[fmt] = run.stdout
    return shown


def test_a_chained_assignment_is_one_finding(tmp_path: Path) -> None:
    (tmp_path / "chained.py").write_text(CHAINED, encoding="utf-8")
    shown = formats(tmp_path, ".")
    assert [(r["code"], r["start_line"], r["start_column"]) for r in json.loads(shown["json"])] == [("BL201", 7, 5)]
    assert len(shown["github"].splitlines()) == 1
    assert [d["code"] for ds in json.loads(shown["lsp"]).values() for d in ds] == ["BL201"]


@pytest.mark.parametrize("data,line,col,character", UNDECODABLE)
def test_an_undecodable_file_is_placed_alike_in_every_format(tmp_path: Path, data: bytes, line: int, col: int,
                                                             character: int) -> None:
    (tmp_path / "latin.py").write_bytes(data)
    shown = formats(tmp_path, "latin.py")
    [record] = json.loads(shown["json"])
    assert (record["code"], record["start_line"], record["start_column"]) == ("BL002", line, col)
    [result] = json.loads(shown["sarif"])["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (line, col)
    assert f",line={line},col={col}," in shown["github"]
    [[diagnostic]] = json.loads(shown["lsp"]).values()
    assert diagnostic["range"]["start"] == {"line": line - 1, "character": character}


def test_nul_bytes_get_one_verdict_from_check_and_from_the_language_server(tmp_path: Path) -> None:
    pytest.importorskip("pygls")
    from .lsp_client import diagnostics_on_disk_and_in_a_buffer

    text = BAD + "z = '\x00'\n"  # BL101 at 5:12, were the NUL not there
    (tmp_path / "nul.py").write_text(text, encoding="utf-8")
    run = run_cli(["check", "--no-cache", "--format", "json", "."], cwd=tmp_path)
    assert run.found() == {("nul.py", "BL003", 1, 1)}
    for diagnostics in diagnostics_on_disk_and_in_a_buffer(tmp_path, tmp_path / "nul.py", text):
        assert [(d["code"], d["range"]["start"]) for d in diagnostics] == [("BL003", {"line": 0, "character": 0})]
