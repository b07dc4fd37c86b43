"""Shared helpers for the tests: the rule testdata, the multi-file projects, and their markers.

`# expect: BLxxx` the linter flags this line and the compiler proves it;
`# possible: BLxxx` the linter reports a `possible` break (a branch that only warns or raises):
    the compiler breaks there only in calls that take the branch;
`# miss: BLxxx (why)` the compiler breaks here and the linter does not see it yet: a known miss,
    which the markers test holds to (it turns red when the linter learns it);
`# false-alarm: BLxxx (why)` the linter flags this line and the compiler does nothing here.

A marker may hold only in some torch versions: `# expect: BL109 (torch<=2.11)`, `(torch 2.12+)`,
`(torch 2.8-2.12)`, a reason after a colon (`(torch<=2.11: why)`). In the other versions the line
has no marker: the linter (run with `target-torch` = the installed torch) must not flag it, and
in a bad.py Dynamo must not break there.
"""

from __future__ import annotations

import re
from pathlib import Path

from breaklint.versions import TorchVersion, Versions, default_target

ROOT = Path(__file__).resolve().parent.parent
# Every wait in the tests (a subprocess, a server's answer) is bounded by this, only so that a hang
# fails the test instead of stalling the run. No outcome may depend on it: nothing a test asserts
# depends on how long something took (speed targets live in benchmarks/).
HANG_GUARD_S = 600.0
TESTDATA = ROOT / "testdata" / "rules"
PROJECTS = ROOT / "testdata" / "projects"
_CODES = r"(?P<codes>BL\d{3}(?:\s*,\s*BL\d{3})*)(?:\s*\((?P<why>.*)\)\s*$)?"
MARKER = re.compile(r"#\s*expect:\s*" + _CODES)
KINDS = ("expect", "possible", "miss", "false-alarm")
_KIND_MARKERS = {kind: re.compile(rf"#\s*{kind}:\s*" + _CODES) for kind in KINDS}
_CONDITION = re.compile(r"^torch\s*(?P<versions><=\s*\d+\.\d+|\d+\.\d+\+|\d+\.\d+-\d+\.\d+)\s*(?::\s*(?P<why>.*))?$")


# A recompile marker may say how often Dynamo recompiles and what guard it names:
# `# expect: BL211 recompiles=1 guard="n == 2"` (count `limit`: until recompile_limit, then eager).
RECOMPILE_MARKER = re.compile(r'#\s*expect:\s*(?P<code>BL2\d\d)\s+recompiles=(?P<count>\d+|limit)(?:\s+guard="(?P<guard>[^"]*)")?')


SUBGRAPH_MARKER = re.compile(r"#\s*expect:\s*(?P<code>BL6\d\d)\s+subgraphs=(?P<count>\d+)")


def subgraph_markers(path: Path) -> dict[int, tuple[str, int]]:
    """line -> (code, the number of graphs the backend is handed in the scenario around it)."""
    found: dict[int, tuple[str, int]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = SUBGRAPH_MARKER.search(line)
        if match:
            found[number] = (match["code"], int(match["count"]))
    return found


def recompile_markers(path: Path) -> dict[int, tuple[str, int | None, str]]:
    """line -> (code, recompiles (None: until the limit), guard text ("" when not given))."""
    found: dict[int, tuple[str, int | None, str]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = RECOMPILE_MARKER.search(line)
        if match:
            count = None if match["count"] == "limit" else int(match["count"])
            found[number] = (match["code"], count, match["guard"] or "")
    return found


def rule_files() -> list[Path]:
    return sorted(TESTDATA.glob("BL*/*.py"))


def expected_markers(path: Path) -> set[tuple[int, str]]:
    """(line, code) for every `# expect: BLxxx` comment in the file."""
    return markers(path, "expect")


def markers(path: Path, kind: str, torch: TorchVersion | None = None) -> set[tuple[int, str]]:
    """(line, code) for every `# KIND: BLxxx` comment in the file (KIND one of KINDS) that holds
    for `torch` (default: the installed torch, the linter's default `target-torch`)."""
    return set(marker_reasons(path, kind, torch))


def marker_reasons(path: Path, kind: str, torch: TorchVersion | None = None) -> dict[tuple[int, str], str]:
    """(line, code) -> the reason written in parentheses after the codes ("" when none), for
    the markers that hold for `torch` (default: the installed torch)."""
    target = torch or default_target()
    return {key: why for key, (versions, why) in marker_conditions(path, kind).items() if target in versions}


def marker_conditions(path: Path, kind: str) -> dict[tuple[int, str], tuple[Versions, str]]:
    """(line, code) -> (the torch versions the marker holds for, its reason), every version's."""
    pattern = _KIND_MARKERS[kind]
    found: dict[tuple[int, str], tuple[Versions, str]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        for match in pattern.finditer(line):
            why = (match.group("why") or "").strip()
            versions, condition = Versions(), _CONDITION.match(why)
            if condition is not None:
                versions = Versions.parse(condition.group("versions").replace(" ", ""))
                why = (condition.group("why") or "").strip()
            for code in match.group("codes").split(","):
                found[(number, code.strip())] = (versions, why)
    return found


def project_dirs() -> list[Path]:
    """Each folder of testdata/projects/ is one multi-file project (a package and its train.py)."""
    return sorted(p for p in PROJECTS.iterdir() if p.is_dir() and (p / "train.py").is_file())


def project_files(project: Path) -> list[Path]:
    return sorted(project.rglob("*.py"))


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """A project of `files` (relative path -> dedented source) under root."""
    import textwrap

    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def check_tree(root: Path, cache: Path | None = None, jobs: int = 1,  # type: ignore[no-untyped-def]
               assume_forward: bool = False):
    """`breaklint check root` with only explicit compile sites as entries (a CheckResult);
    `assume_forward`: every module's forward assumed compiled too (the default configuration)."""
    from breaklint.check.salt import project_cache
    from breaklint.config import Config
    from breaklint.check.engine import Engine
    from breaklint.check.registry import RuleSet

    config = Config(root=root, assume_forward_compiled=assume_forward)
    return Engine(config, RuleSet(config), cache=project_cache(cache) if cache else None, jobs=jobs).check([root])
