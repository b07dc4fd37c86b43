"""breaklint/lsp/reparse.py: an edited buffer parsed again statement by statement must give
exactly the tree of parsing the whole new text, or refuse; and the language server's findings
after edits must be `breaklint check`'s on the same text."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from breaklint.report.json import finding_record
from breaklint.lsp.reparse import Parse, reparse
from breaklint.lsp.workspace import load_project
from testdata import HANG_GUARD_S, ROOT

SOURCES = sorted([*ROOT.glob("breaklint/**/*.py"), *ROOT.glob("rules/*.py"), *ROOT.glob("examples/**/*.py")])
# A spread of them, small enough that a whole parse after each edit stays cheap.
SAMPLE = [p for p in SOURCES if 40 < len(p.read_text(encoding="utf-8").splitlines()) < 250][::4]


def parse(text: str) -> Parse:
    return Parse(text, cst.parse_module(text))


def assert_same_as_whole(got: Parse, text: str) -> None:
    whole = cst.parse_module(text)
    assert got.text == text and got.tree.code == text
    assert got.tree.deep_equals(whole)
    config = ("default_indent", "default_newline", "has_trailing_newline", "encoding")
    assert [getattr(got.tree, a) for a in config] == [getattr(whole, a) for a in config]
    assert got.starts() == Parse(text, whole).starts()  # where the next edit will cut


def edit(lines: list[str], rng: random.Random) -> list[str]:
    """One editor-like edit: a keystroke in a line, a line duplicated, deleted or added."""
    k = rng.randrange(len(lines))
    lines = lines[:]
    indent = lines[k][: len(lines[k]) - len(lines[k].lstrip())]
    op = rng.choice(["type", "type", "duplicate", "delete", "statement", "blank", "comment", "indented comment"])
    if op == "type":
        cut = rng.randrange(len(lines[k]) + 1)
        lines[k] = lines[k][:cut] + rng.choice(["z", " ", "(", ".item()", ":", '"']) + lines[k][cut:]
    elif op == "duplicate":
        lines.insert(k, lines[k])
    elif op == "delete":
        del lines[k]
    elif op == "statement":
        lines.insert(k, indent + rng.choice(["y = x.sum().item()", "pass", "return", "def g():", "class C:"]))
    elif op == "blank":
        lines.insert(k, rng.choice(["", "    ", "\t"]))
    elif op == "comment":
        lines.insert(k, "# a note")
    else:
        lines.insert(k, "    # a note")
    return lines


def test_edits_of_real_files_reparse_to_the_whole_parse() -> None:
    """Seeded edits of this repository's own files, each from the previous result: every
    reparse equals the whole parse, and most edits that parse at all are reparsed."""
    rng = random.Random(20261201)
    reparsed = refused = 0
    for path in SAMPLE:
        text = path.read_text(encoding="utf-8")
        base = parse(text)
        lines = text.split("\n")
        for _ in range(12):
            lines = edit(lines, rng)
            new = "\n".join(lines)
            got = reparse(base, new)
            if got is None:
                try:
                    base = parse(new)  # what the server does: parse it all, go on from there
                    refused += 1
                except cst.ParserSyntaxError:
                    lines = base.text.split("\n")  # a syntax error: the next edit starts from the last good text
                continue
            reparsed += 1
            assert_same_as_whole(got, new)
            base = got
    assert reparsed > 2 * refused > 0, (reparsed, refused)


@pytest.mark.parametrize(("before", "after", "spliced"), [
    # an edit inside a method: reparsed
    ("import torch\n\n\nclass A:\n    def f(self, x):\n        return x\n\n\nclass B:\n    pass\n",
     "import torch\n\n\nclass A:\n    def f(self, x):\n        return x.item()\n\n\nclass B:\n    pass\n", True),
    # an indented comment typed after a block belongs to that block's footer
    ("import os\n\n\nclass A:\n    x = 1\n\n\nclass B:\n    y = 2\n\n\nz = 3\n",
     "import os\n\n\nclass A:\n    x = 1\n    # here\n\n\nclass B:\n    y = 2\n\n\nz = 3\n", None),
    ("import os\n\n\nclass A:\n    x = 1\n\n\nclass B:\n    y = 2\n",
     "import os\n\n\nclass A:\n    x = 1\n\n\n    # here\nclass B:\n    y = 2\n", None),
    # the first indented block fixes the default indent: changing it changes every block
    ("import os\n\n\nclass A:\n    x = 1\n\n\nclass B:\n  y = 2\n",
     "import os\n\n\nclass A:\n  x = 1\n\n\nclass B:\n  y = 2\n", None),
    ("import os\n\n\nclass A:\n    x = 1\n\n\nclass B:\n  y = 2\n",
     "import os\n\n\n\n\nclass B:\n  y = 2\n", None),
    # tabs after spaces, CRLF, a lone CR, no newline at the end, a new last statement
    ("import os\n\n\nclass A:\n    x = 1\n\n\nclass B:\n    y = 2\n",
     "import os\n\n\nclass A:\n    x = 1\n\n\nclass B:\n\ty = 2\n", None),
    ("import os\r\n\r\nclass A:\r\n    x = 1\r\n\r\nclass B:\r\n    y = 2\r\n",
     "import os\r\n\r\nclass A:\r\n    x = 1\r\n\r\nclass B:\r\n    y = 3\r\n", True),
    ("import os\n\nclass A:\n    x = 1\n\nclass B:\n    y = 2\n",
     "import os\n\nclass A:\n    x = 1\n\nclass B:\n    y = 2\r", None),
    ("import os\n\nclass A:\n    x = 1\r    y = 2\n\nclass B:\n    z = 3\n",
     "import os\n\nclass A:\n    x = 1\n    y = 2\n\nclass B:\n    z = 3\n", None),
    ("import os\n\nclass A:\n    x = 1\n\ny = 2", "import os\n\nclass A:\n    x = 1\n\ny = 22", True),
    ("import os\n\nclass A:\n    x = 1\n", "import os\n\nclass A:\n    x = 1\n\n\ndef g():\n    pass\n", True),
    ("import os\n\nclass A:\n    x = 1\n\n# trailing\n", "import os\n\nclass A:\n    x = 2\n\n# trailing\n", True),
    # comments before the statement are its leading lines; the header is left alone
    ("import os\n\nclass A:\n    x = 1\n\nclass B:\n    y = 2\n",
     "import os\n\nclass A:\n    x = 1\n\n# about B\n\nclass B:\n    y = 2\n", True),
    ("# header\nimport os\n\nclass A:\n    x = 1\n", "# header!\nimport os\n\nclass A:\n    x = 1\n", None),
    # a statement deleted whole; one that joins the next (refused: the whole text decides)
    ("import os\n\nclass A:\n    x = 1\n\nclass B:\n    y = 2\n\nclass C:\n    z = 3\n",
     "import os\n\nclass A:\n    x = 1\n\nclass C:\n    z = 3\n", True),
    ("import os\n\nclass A:\n    x = 1\n\nclass B:\n    y = 2\n",
     "import os\n\nclass A:\n    x = (1\n\nclass B:\n    y = 2\n", None),
])
def test_tricky_edits(before: str, after: str, spliced: bool | None) -> None:
    got = reparse(parse(before), after)
    if spliced:
        assert got is not None
    if got is not None:
        assert_same_as_whole(got, after)
    elif spliced is None:
        try:
            cst.parse_module(after)
        except cst.ParserSyntaxError:
            pass


SNIPPETS = ["", "x", "\n", "    y = 1\n", "\n\n# note\n", "        return x.item()\n", "def g():\n    pass\n",
            "(", ")", "  # c\n", "class Q:\n\tz = 1\n", "@dec\n", "\r\n", "'''", "import os\n", "\\\n", "  \n"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(file=st.sampled_from(SAMPLE), where=st.floats(0, 1), cut=st.integers(0, 80),
       snippet=st.sampled_from(SNIPPETS))
def test_any_edit_reparses_to_the_whole_parse_or_refuses(file: Path, where: float, cut: int, snippet: str) -> None:
    text = file.read_text(encoding="utf-8")
    at = int(where * len(text))
    new = text[:at] + snippet + text[at + cut:]
    got = reparse(parse(text), new)
    if got is not None:
        assert_same_as_whole(got, new)


# --- the language server's findings after edits are `check`'s ----------------------------------
MODEL = '''import torch
from torch import nn


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = 0.5

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale


class Head(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.softmax(-1)


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.block = Block()
        self.head = Head()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.block(x))
'''
TRAIN = "import torch\n\nfrom model import Model\n\nm = torch.compile(Model())\n"
EDITS = [  # (old, new) in order, each applied to the text the previous one left
    ("return x * self.scale", "return x * self.scale * x.sum().item()"),
    ("return x.softmax(-1)", "print(x)\n        return x.softmax(-1)"),
    ("self.scale = 0.5", "self.scale = 0.5\n        self.steps = 0"),
    ("return self.head(self.block(x))", "self.steps += 1\n        if x.sum() > 0:\n            x = -x\n"
     "        return self.head(self.block(x))"),
    ("print(x)\n", "print(x  # breaklint: ignore[BL101]\n"),  # a syntax error, then fixed
    ("print(x  # breaklint: ignore[BL101]\n", "print(x)  # breaklint: ignore[BL101]\n"),
    ("class Head(nn.Module):", "def helper(t):\n    return t.tolist()\n\n\nclass Head(nn.Module):"),
    ("return x.softmax(-1)", "return helper(x.softmax(-1))"),
    ("\n\nclass Head(nn.Module):", "  # é😀 before\n\nclass Head(nn.Module):"),
    ("x = -x\n", "x = -x  # breaklint: ignore[BL102]\n"),
]


def test_findings_after_edits_are_checks(tmp_path: Path) -> None:
    """A buffer edited step by step in the warm project gives, after every edit, exactly the
    findings `breaklint check` gives for that text on disk — and most edits were reparsed."""
    project_dir, disk = tmp_path / "open", tmp_path / "disk"
    for root in (project_dir, disk):
        root.mkdir()
        (root / "model.py").write_text(MODEL, encoding="utf-8")
        (root / "train.py").write_text(TRAIN, encoding="utf-8")
    project, error = load_project(project_dir)
    assert error is None
    path = project_dir / "model.py"
    text = MODEL
    project.check([path], {path: text})
    reparsed, codes = 0, set()
    for old, new in EDITS:
        assert old in text
        before = project.trees.last.get(path)
        text = text.replace(old, new, 1)
        found = project.check([path], {path: text})[path]
        after = project.trees.last.get(path)
        if before is not None and after is not None and after is not before:  # its region code, parsed anew
            reparsed += after.tree.body[0] is before.tree.body[0]  # nodes shared: spliced
        (disk / "model.py").write_text(text, encoding="utf-8")
        cli = subprocess.run([sys.executable, "-m", "breaklint", "check", "model.py", "train.py", "--format", "json",
                              "--no-cache"], cwd=disk, capture_output=True, text=True, timeout=HANG_GUARD_S)
        assert cli.returncode in (0, 1), cli.stderr
        expected = [r for r in json.loads(cli.stdout) if r["path"] == "model.py"]
        assert [finding_record(f) for f in found] == expected, (old, new)
        codes.update(f.code for f in found)
    assert reparsed >= len(EDITS) // 2, reparsed
    assert {"BL001", "BL101", "BL102"} <= codes  # the edits did change the findings


def test_a_whitespace_only_tail_is_never_spliced() -> None:
    """A file ending in whitespace-only lines (`\\n \\n `): an edit far above them once lost
    one, as the tail joins the last block's footer; such texts are parsed whole."""
    text = "import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    os._exit(1)\n \n "
    base = parse(text)
    edited = text.replace("return 1", "return 2")
    got = reparse(base, edited)
    assert got is None or (got.tree.code == edited and got.tree.deep_equals(cst.parse_module(edited)))
    assert reparse(base, edited) is None
