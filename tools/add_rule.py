"""Scaffold a rule, as ruff's `add_rule`: the rule file, its testdata and its registration.

    python tools/add_rule.py BL118 tensor-hash       # the stage comes from the code's hundreds digit

Writes rules/<snake_name>.py (a class with the docstring sections, message, examples and a
`visit_Call` to fill in), testdata/rules/<CODE>/{bad,good}.py (with an `# expect:` marker to
make true), adds the import and the registry entry to rules/__init__.py in code order, and
regenerates docs/rules/. Then: write the rule, make the testdata say what real Dynamo does
(`python -m pytest tests/test_ground_truth.py -k <CODE>`), and run the fast tests.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGES = {"0": "META", "1": "DYNAMO", "2": "GUARDS", "3": "AOT_AUTOGRAD", "4": "INDUCTOR", "5": "CUDAGRAPHS", "6": "DISTRIBUTED"}

RULE = '''"""{code} {name}: <one line: the pattern found>."""

from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule


class {cls}(Rule):
    """## What it does
    <The pattern, in a sentence or two.>

    ## Why is this bad?
    <What Dynamo (or the later stage) does with it, and what it costs.>

    ## How to fix
    <A concrete fix.>

    ## When it is fine
    <When the cost is intended or absent.>

    ## Dynamo says
    `<the message Dynamo logs>` (GBxxxx).
    """

    code = "{code}"
    name = "{name}"
    stage = Stage.{stage}
    message = "<what> in {{region}} <what it does to the graph>"
    help = "<the fix, one line>"
    dynamo_says = {{}}  # GB id -> what Dynamo says (shared/reference/graph-break-registry.md)
    bad = ("import torch\\n\\n@torch.compile\\ndef f(x):\\n    return x  # <the pattern>\\n",)
    good = ("import torch\\n\\ndef f(x):\\n    return x  # not compiled\\n",)

    def visit_Call(self, node: cst.Call) -> None:
        if False:  # <match the pattern; self.ctx holds the region, values and resolution>
            self.report(node, confidence=Confidence.LIKELY)
'''

BAD = '''"""{code} positives: each marked line breaks (or recompiles) under real Dynamo."""
import torch


@torch.compile
def case(x):
    return x  # expect: {code}
'''

GOOD = '''"""{code} negatives: nothing here breaks under real Dynamo, and nothing is flagged."""
import torch


@torch.compile
def clean(x):
    return x + 1
'''


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("code", help="BLxxx, unused so far")
    parser.add_argument("name", help="kebab-case: the pattern found")
    args = parser.parse_args(argv)
    code, name = args.code.upper(), args.name.lower()
    if not re.fullmatch(r"BL\d{3}", code) or not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", name):
        parser.error("expected a code like BL118 and a kebab-case name")
    snake = name.replace("-", "_")
    cls = "".join(part.capitalize() for part in name.split("-"))
    registry = ROOT / "rules" / "__init__.py"
    text = registry.read_text(encoding="utf-8")
    if f"# {code}\n" in text or (ROOT / "rules" / f"{snake}.py").exists():
        parser.error(f"{code} or {snake}.py exists already")
    (ROOT / "rules" / f"{snake}.py").write_text(
        RULE.format(code=code, name=name, cls=cls, stage=STAGES[code[2]]), encoding="utf-8")
    data = ROOT / "testdata" / "rules" / code
    data.mkdir(parents=True)
    (data / "bad.py").write_text(BAD.format(code=code), encoding="utf-8")
    (data / "good.py").write_text(GOOD.format(code=code), encoding="utf-8")
    registry.write_text(_registered(text, snake, cls, code), encoding="utf-8")
    subprocess.run([sys.executable, str(ROOT / "tools" / "gen_docs.py")], check=True)
    print(f"wrote rules/{snake}.py, testdata/rules/{code}/, docs/rules/{code}.md; registered {cls}")
    return 0


def _registered(text: str, snake: str, cls: str, code: str) -> str:
    """rules/__init__.py with the import in name order and the entry in code order."""
    lines = text.split("\n")
    imports = [i for i, line in enumerate(lines) if line.startswith("from .")]
    new_import = f"from .{snake} import {cls}"
    at = next((i for i in imports if lines[i] > new_import), imports[-1] + 1)
    lines.insert(at, new_import)
    entries = [i for i, line in enumerate(lines) if re.fullmatch(r"    \w+,  # BL\d{3}", line)]
    entry = f"    {cls},  # {code}"
    at = next((i for i in entries if lines[i].rsplit("# ", 1)[1] > code), entries[-1] + 1)
    lines.insert(at, entry)
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
