"""`--format github`: workflow-command annotations in the documented form
`::warning file=F,line=L,col=C,endLine=EL,endColumn=EC,title=T::MESSAGE`, escaped for the runner."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from breaklint.finding import Confidence, Finding, Severity, Span, Stage
from breaklint.report.github import annotation
from testdata import HANG_GUARD_S

ANNOTATION = re.compile(
    r"^::(?P<level>error|warning|notice) file=(?P<file>[^,]+),line=(?P<line>\d+),col=(?P<col>\d+),"
    r"endLine=(?P<end_line>\d+),endColumn=(?P<end_col>\d+),title=(?P<title>[^,:]+)::(?P<message>.+)$"
)


def unescape(text: str) -> str:
    return text.replace("%0A", "\n").replace("%0D", "\r").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def test_annotations_from_the_cli(tmp_path: Path) -> None:
    prefix = "    s = 'ü😀'; return x * "
    (tmp_path / "m.py").write_text(f"import torch\n\n@torch.compile\ndef f(x):\n{prefix}x.sum().item()\n",
                                   encoding="utf-8")
    (tmp_path / "broken.py").write_text("def f(:\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "breaklint", "check", ".", "--format", "github"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    matches = [ANNOTATION.match(line) for line in lines]
    assert all(matches), lines
    syntax, item = (m.groupdict() for m in matches if m)  # sorted by path: broken.py, m.py
    assert syntax["level"] == "error" and syntax["file"] == "broken.py" and "BL001" in syntax["title"]
    assert item["level"] == "warning" and item["file"] == "m.py"
    column = len(prefix) + 1  # code points, as the text report counts them
    assert (item["line"], item["col"], item["end_line"], item["end_col"]) == (
        "5", str(column), "5", str(column + len("x.sum().item()")))
    assert item["title"] == "breaklint BL101 tensor-to-scalar"
    message = unescape(item["message"])
    assert message.startswith("BL101 [likely] `.item()` in compiled region `f` via m.py:3")
    assert "\nhelp: keep the value a tensor" in message and "\n" not in item["message"]


def test_escaping() -> None:
    finding = Finding(
        code="BL104", name="dynamic-shape-op", message="100% of rows: a, b\r\nnext", path="dir,1/a:b.py",
        span=Span(3, 2, 3, 9), severity=Severity.INFO, confidence=Confidence.CERTAIN, stage=Stage.DYNAMO,
    )
    line = annotation(finding)
    assert line == ("::notice file=dir%2C1/a%3Ab.py,line=3,col=2,endLine=3,endColumn=9,"
                    "title=breaklint BL104 dynamic-shape-op::BL104 [certain] 100%25 of rows: a, b%0D%0Anext")
    match = ANNOTATION.match(line)
    assert match and unescape(match["file"]) == "dir,1/a:b.py"


def test_clean_run_prints_nothing(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("x = 1\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "breaklint", "check", ".", "--format", "github"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert result.returncode == 0 and result.stdout == ""
