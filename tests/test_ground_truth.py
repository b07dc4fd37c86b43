"""Ground truth: every rule's testdata runs through the real compiler (see ground_truth_runner.py).

Positives (`# expect: BL1xx` and BL3xx) must graph-break at the marked line with one of the rule's
GB ids (a break that makes Dynamo skip the whole frame counts), and every break in a bad file must
be a marked one; `# expect: BL2xx` lines must sit in a function (or a `scenario_*` function) that
recompiles; `# expect: BL4xx` lines must be where Inductor falls back to an ATen kernel, and every
fallback in a bad file must be marked. Negatives must do none of these.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from testdata import HANG_GUARD_S, ROOT, expected_markers, markers, project_dirs, project_files, recompile_markers, rule_files, subgraph_markers

from breaklint.check.registry import find_rule
from breaklint.rule import LIMIT, count_phrase

def breaks_graph(code: str) -> bool:
    """Whether a marker of `code` must be a graph break: BL1xx and BL3xx, and the BL6xx rules
    that quote a GB id (BL601's marker states a subgraph count instead)."""
    rule = find_rule(code)
    return code[2] in "13" or (code[2] == "6" and rule is not None and bool(rule.gb_ids()))


RECOMPILE_LIMIT = 8  # torch._dynamo.config.recompile_limit's default

pytestmark = pytest.mark.dynamo  # runs the real compiler (deselect with -m 'not dynamo')

pytest.importorskip("torch")
RUNNER = Path(__file__).with_name("ground_truth_runner.py")


def run_through_dynamo(paths: list[Path], out: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONBREAKPOINT": "0", "PYTHONPATH": str(ROOT)}
    completed = subprocess.run(
        [sys.executable, str(RUNNER), str(out), *map(str, paths)],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=HANG_GUARD_S,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def dynamo_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_through_dynamo(rule_files(), tmp_path_factory.mktemp("dynamo") / "result.json")


def function_spans(path: Path) -> list[tuple[int, int]]:
    """(first line incl. decorators, last line) of every function in the file."""
    spans = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            spans.append((first, node.end_lineno or node.lineno))
    return spans


def breaks_in(cases: dict[str, Any], path: Path) -> list[dict[str, Any]]:
    return [b for case in cases.values() for b in case["graph_breaks"]
            if Path(b["filename"]) == path and not b["frame_skipped"]]


def skipped_breaks_in(cases: dict[str, Any], path: Path) -> list[dict[str, Any]]:
    return [b for case in cases.values() for b in case["graph_breaks"]
            if Path(b["filename"]) == path and b["frame_skipped"]]


def fallbacks_in(cases: dict[str, Any], path: Path) -> list[dict[str, Any]]:
    return [f for case in cases.values() for f in case.get("fallbacks", []) if Path(f["filename"]) == path]


def called_functions(path: Path, first: int, last: int) -> list[tuple[int, int]]:
    """The spans of this file's functions that the code in lines first..last calls by name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defs = {node.name: node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    names = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
             and first <= node.lineno <= last}
    return [(min([d.lineno, *(x.lineno for x in d.decorator_list)]), d.end_lineno or d.lineno)
            for name, d in defs.items() if name in names]


def recompiled_lines(cases: dict[str, Any], path: Path) -> set[int]:
    """Every line inside a function of `path` that recompiled, or of a scenario that saw one (and
    of the functions of this file the scenario calls: the call that changes a guarded value may
    sit in a helper)."""
    lines: set[int] = set()
    for case in cases.values():
        scenario = case.get("scenario_lines")
        # A project's main() (scenario_file) owns every recompile of the project's modules.
        owns = case.get("scenario_file") == str(path) and bool(case["recompiles"])
        if scenario and (owns or "scenario_file" not in case and any(Path(r["filename"]) == path for r in case["recompiles"])):
            lines.update(range(scenario[0], scenario[1] + 1))
            for first, last in called_functions(path, *scenario):
                lines.update(range(first, last + 1))
        for recompile in case["recompiles"]:
            if Path(recompile["filename"]) != path:
                continue
            for first, last in function_spans(path):
                if first <= recompile["firstlineno"] <= last:
                    lines.update(range(first, last + 1))
    return lines


def check_positives(path: Path, cases: dict[str, Any]) -> None:
    breaks = breaks_in(cases, path)
    every_break = breaks + skipped_breaks_in(cases, path)
    fallbacks = fallbacks_in(cases, path)
    recompiled = recompiled_lines(cases, path)
    # Known misses and `possible` lines are held to the compiler like `expect` lines (a possible
    # one in a bad file is called so that its branch runs); false alarms must stay false.
    marked = expected_markers(path) | markers(path, "miss") | markers(path, "possible")
    for line, code in sorted(markers(path, "false-alarm")):
        if breaks_graph(code):
            assert not [b for b in every_break if b["lineno"] == line], f"{path.name}:{line} {code} breaks: not a false alarm"
        elif code.startswith("BL2"):
            assert line not in recompiled, f"{path.name}:{line} {code} recompiles: not a false alarm"
    for line, code in sorted(marked):
        rule = find_rule(code)
        assert rule is not None
        if breaks_graph(code):
            here = [b for b in every_break if b["lineno"] == line]
            assert here, f"{path.name}:{line} {code}: Dynamo did not break here; it broke at {[b['lineno'] for b in every_break]}"
            ids = {b["gb_id"] for b in here}
            assert ids & set(rule.gb_ids()), f"{path.name}:{line}: Dynamo said {ids}, {code} says {rule.gb_ids()}"
        elif code.startswith("BL2"):
            assert line in recompiled, f"{path.name}:{line} {code}: no recompile in this function"
        elif code.startswith("BL4"):
            ops = [f["op"] for f in fallbacks if f["lineno"] == line]
            assert ops, f"{path.name}:{line} {code}: Inductor fell back at {[f['lineno'] for f in fallbacks]}, not here"
    marked_break_lines = {line for line, code in marked if breaks_graph(code)}
    unmarked = [(b["lineno"], b["gb_type"]) for b in breaks if b["lineno"] not in marked_break_lines]
    assert not unmarked, f"graph breaks the linter did not flag: {unmarked}"
    marked_fallback_lines = {line for line, code in marked if code.startswith("BL4")}
    unmarked_fallbacks = [(f["lineno"], f["op"]) for f in fallbacks if f["lineno"] not in marked_fallback_lines]
    assert not unmarked_fallbacks, f"Inductor fallbacks the linter did not flag: {unmarked_fallbacks}"


def check_recompile_counts(path: Path, cases: dict[str, Any], findings: list[Any]) -> None:
    """Each `recompiles=N guard="..."` marker: the scenario around it recompiled (this file's
    functions) exactly N times (`limit`: up to recompile_limit, then Dynamo's GB0039), the first
    recompile names the guard, and the finding at the line says the same count and guard."""
    for line, (code, count, guard) in sorted(recompile_markers(path).items()):
        case = next((c for c in cases.values() if c.get("scenario_lines")
                     and c["scenario_lines"][0] <= line <= c["scenario_lines"][1]), None)
        assert case is not None, f"{path.name}:{line}: a recompile count is only checked in a scenario_* function"
        recompiles = [r for r in case["recompiles"] if Path(r["filename"]) == path]
        if count is None:
            assert len(recompiles) == RECOMPILE_LIMIT, f"{path.name}:{line}: {len(recompiles)} recompiles, not the limit"
            assert any(b["gb_id"] == "GB0039" for b in case["graph_breaks"]), f"{path.name}:{line}: limit not hit"
        else:
            assert len(recompiles) == count, f"{path.name}:{line}: Dynamo recompiled {len(recompiles)} times, marker says {count}"
        if guard and recompiles:
            assert any(guard in reason for reason in recompiles[0]["reasons"]), \
                f"{path.name}:{line}: Dynamo's guard failure was {recompiles[0]['reasons']}, not {guard!r}"
        here = [f for f in findings if f.code == code and f.span.start_line == line]
        assert here, f"{path.name}:{line}: no {code} finding"
        # The count as the finding words it: with or without "then treats the value as dynamic".
        phrases = [count_phrase(LIMIT if count is None else count, after) for after in (False, True)]
        assert any(phrase in here[0].message for phrase in phrases) and guard in here[0].message, \
            f"{path.name}:{line}: the finding says {here[0].message!r}; Dynamo did {phrases[0]!r} on {guard!r}"


def check_subgraph_counts(path: Path, cases: dict[str, Any], findings: list[Any]) -> None:
    """Each `subgraphs=N` marker: the scenario around it handed the backend exactly N graphs
    (DDPOptimizer's split), and the finding at the line predicts N."""
    for line, (code, count) in sorted(subgraph_markers(path).items()):
        case = next((c for c in cases.values() if c.get("scenario_lines")
                     and c["scenario_lines"][0] <= line <= c["scenario_lines"][1]), None)
        assert case is not None, f"{path.name}:{line}: a subgraph count is only checked in a scenario_* function"
        assert case["subgraphs"] == count, f"{path.name}:{line}: the backend got {case['subgraphs']} graphs, marker says {count}"
        here = [f for f in findings if f.code == code and f.span.start_line == line]
        assert here and f" {count} subgraphs" in here[0].message, \
            f"{path.name}:{line}: the finding says {[f.message for f in here]}; the compiler made {count} graphs"


@pytest.mark.parametrize("path", [p for p in rule_files() if p.name == "bad.py" and subgraph_markers(p)],
                         ids=lambda p: p.parent.name)
def test_graphs_split_as_predicted(path: Path, dynamo_results, check) -> None:
    check_subgraph_counts(path, dynamo_results[str(path)], check([path]).findings)


def test_subgraph_count_check_can_fail(tmp_path: Path, check) -> None:
    """On recorded results: a wrong count and a finding that predicts another count fail."""
    path = tmp_path / "bad.py"
    path.write_text(
        "import torch\nfrom torch import nn\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.a = nn.Linear(1024, 1024)\n        self.b = nn.Linear(1024, 1024)\n\n"
        "    def forward(self, x):\n        return self.b(self.a(x))\n\n"
        "def scenario_wrap():\n    model = DDP(torch.compile(Net()))  # expect: BL601 subgraphs=2\n",
        encoding="utf-8",
    )
    findings = check([path], root=tmp_path).findings

    def cases(subgraphs: int) -> dict[str, Any]:
        return {"scenario_wrap": {"subgraphs": subgraphs, "graph_breaks": [], "recompiles": [], "fallbacks": [],
                                  "errors": [], "scenario_lines": [14, 15]}}

    check_subgraph_counts(path, cases(2), findings)
    with pytest.raises(AssertionError, match="backend got 3 graphs"):
        check_subgraph_counts(path, cases(3), findings)
    with pytest.raises(AssertionError, match="the finding says"):
        check_subgraph_counts(path, cases(2), [])


@pytest.mark.parametrize("path", [p for p in rule_files() if p.name == "bad.py" and recompile_markers(p)],
                         ids=lambda p: p.parent.name)
def test_recompiles_as_often_as_predicted(path: Path, dynamo_results, check) -> None:
    check_recompile_counts(path, dynamo_results[str(path)], check([path]).findings)


def test_recompile_count_check_can_fail(tmp_path: Path, check) -> None:
    """On recorded results: a wrong count, a wrong guard and a finding that says something else fail."""
    path = tmp_path / "bad.py"
    path.write_text(
        "import torch\n\n@torch.compile\ndef f(x, n: int):\n    return x * n\n\n"
        "def scenario_int():\n    f(1, 2)\n    f(1, 3)  # expect: BL211 recompiles=1 guard=\"n == 2\"\n",
        encoding="utf-8",
    )
    findings = check([path], root=tmp_path).findings
    recompile = {"function": "f", "filename": str(path), "firstlineno": 3, "reasons": ["n == 2"]}

    def cases(*recompiles: dict[str, Any]) -> dict[str, Any]:
        return {"scenario_int": {"graph_breaks": [], "recompiles": list(recompiles), "fallbacks": [], "errors": [],
                                 "scenario_lines": [7, 9]}}

    check_recompile_counts(path, cases(recompile), findings)
    with pytest.raises(AssertionError, match="recompiled 2 times"):
        check_recompile_counts(path, cases(recompile, recompile), findings)
    with pytest.raises(AssertionError, match="guard failure was"):
        check_recompile_counts(path, cases({**recompile, "reasons": ["n == 3"]}), findings)
    with pytest.raises(AssertionError, match="no BL211 finding"):
        check_recompile_counts(path, cases(recompile), [])


@pytest.mark.parametrize("path", [p for p in rule_files() if p.name == "bad.py"], ids=lambda p: p.parent.name)
def test_positives_break_or_recompile_at_marked_lines(path: Path, dynamo_results) -> None:
    check_positives(path, dynamo_results[str(path)])


@pytest.mark.parametrize("path", [p for p in rule_files() if p.name == "good.py"], ids=lambda p: p.parent.name)
def test_negatives_neither_break_nor_recompile(path: Path, dynamo_results) -> None:
    cases = dynamo_results[str(path)]
    assert breaks_in(cases, path) + skipped_breaks_in(cases, path) == []
    assert not any(Path(r["filename"]) == path for case in cases.values() for r in case["recompiles"])
    assert fallbacks_in(cases, path) == []
    assert not any(case["errors"] for case in cases.values())
    assert all((case.get("subgraphs") or 0) <= 1 for case in cases.values()), "a negative's graph was split"


def check_escalations(path: Path, cases: dict[str, Any], findings: list[Any]) -> None:
    """A graph-break finding at severity `error` (a break in a loop, or reached from a loop in a
    caller) must be where Dynamo gave up on a frame with "graph break in loop" (GB7000), and a
    GB7000 at a flagged line must have been escalated."""
    skipped = {b["lineno"] for case in cases.values() for b in case["graph_breaks"]
               if Path(b["filename"]) == path and b["gb_id"] == "GB7000"}
    # A second break under a loop Dynamo already gave up on (its frame skipped at the first one)
    # breaks in a frame of its own, without a GB7000 of its own: it is escalated for the same loop.
    behind_a_skip = {b["lineno"] for case in cases.values()
                     if any(e["gb_id"] == "GB7000" for e in case["graph_breaks"])
                     for b in case["graph_breaks"] if Path(b["filename"]) == path}
    breaking = [f for f in findings if breaks_graph(f.code) and f.gb_ids]
    escalated = {f.span.start_line for f in breaking if f.severity.value == "error"}
    assert escalated <= skipped | behind_a_skip, \
        f"{path.name}: escalated at {sorted(escalated - skipped - behind_a_skip)}, Dynamo did not skip a frame there"
    flagged = {f.span.start_line for f in breaking}
    assert skipped & flagged <= escalated, f"{path.name}: GB7000 at {sorted((skipped & flagged) - escalated)}, not escalated"


@pytest.mark.parametrize("path", [p for p in rule_files() if p.name == "bad.py"], ids=lambda p: p.parent.name)
def test_escalated_findings_are_frames_dynamo_skipped(path: Path, dynamo_results, check) -> None:
    check_escalations(path, dynamo_results[str(path)], check([path]).findings)


@pytest.fixture(scope="module")
def project_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_through_dynamo(project_dirs(), tmp_path_factory.mktemp("projects") / "result.json")


@pytest.mark.parametrize("project", project_dirs(), ids=lambda p: p.name)
def test_projects_break_at_marked_lines_only(project: Path, project_results, check) -> None:
    """A project's train.py runs its own main() (which compiles what it compiles); every file of
    the project is then held to its markers, and its clean look-alikes to no break at all; and
    each escalation (a break in a loop, here or in a caller in another file) to a GB7000."""
    cases = project_results[str(project)]
    assert not any(case["errors"] for case in cases.values()), cases
    findings = check([project]).findings
    for path in project_files(project):
        check_positives(path, cases)
        check_escalations(path, cases, [f for f in findings if Path(f.path).resolve() == path.resolve()])
    assert any(breaks_in(cases, path) for path in project_files(project))


def test_harness_can_fail(tmp_path: Path) -> None:
    """A known break, a known recompile, and a missed break are all seen."""
    path = tmp_path / "bad.py"
    path.write_text(
        "import torch\n\nSTEP = [0]\n\n@torch.compile\ndef brk(x):\n    return x * x.sum().item()  # expect: BL101\n\n"
        "@torch.compile\ndef rec(x):\n    STEP[0] += 1\n    return x + STEP[0]\n\n"
        "@torch.compile\ndef missed(x):\n    return x * x.max().item()\n",
        encoding="utf-8",
    )
    cases = run_through_dynamo([path], tmp_path / "result.json")[str(path.resolve())]
    assert [b["lineno"] for b in breaks_in(cases, path)] == [7, 16]
    assert 11 in recompiled_lines(cases, path)
    with pytest.raises(AssertionError, match="did not flag"):
        check_positives(path, cases)


def test_checks_fail_on_wrong_fallbacks_and_scenarios(tmp_path: Path) -> None:
    """The Inductor and scenario checks, on recorded results: each can fail."""
    path = tmp_path / "bad.py"
    path.write_text(
        "import torch\n\n@torch.compile\ndef f(x):\n    return torch.linalg.svd(x).S  # expect: BL401\n\n"
        "def scenario_flip():\n    with torch.no_grad():\n        model(x)  # expect: BL204\n",
        encoding="utf-8",
    )
    fallback = {"op": "aten._linalg_svd.default", "filename": str(path), "lineno": 5}
    recompile = {"function": "forward", "filename": str(path), "firstlineno": 3, "reasons": ["GLOBAL_STATE changed"]}
    ok = {"f": {"graph_breaks": [], "recompiles": [], "fallbacks": [fallback], "errors": []},
          "scenario_flip": {"graph_breaks": [], "recompiles": [recompile], "fallbacks": [], "errors": [],
                            "scenario_lines": [7, 9]}}
    check_positives(path, ok)
    stray = {**ok, "f": {**ok["f"], "fallbacks": [fallback, {**fallback, "lineno": 4}]}}
    with pytest.raises(AssertionError, match="fallbacks the linter did not flag"):
        check_positives(path, stray)
    with pytest.raises(AssertionError, match="Inductor fell back"):
        check_positives(path, {**ok, "f": {**ok["f"], "fallbacks": []}})
    with pytest.raises(AssertionError, match="no recompile"):
        check_positives(path, {**ok, "scenario_flip": {**ok["scenario_flip"], "recompiles": []}})


def test_escalation_check_can_fail(tmp_path: Path, check) -> None:
    """On recorded results: an escalated finding without a GB7000 there, and a GB7000 at a
    finding that was not escalated, are both caught."""
    path = tmp_path / "bad.py"
    path.write_text(
        "import torch\n\n@torch.compile\ndef f(x):\n    for _ in range(2):\n        x = x * x.sum().item()\n"
        "    return x * x.max().item()\n",
        encoding="utf-8",
    )
    findings = check([path], root=tmp_path).findings
    assert {f.span.start_line: f.severity.value for f in findings} == {6: "error", 7: "warning"}

    def skip_at(line: int) -> dict[str, Any]:
        gb7000 = {"filename": str(path), "lineno": line, "gb_id": "GB7000", "frame_skipped": True}
        return {"f": {"graph_breaks": [gb7000], "recompiles": [], "fallbacks": [], "errors": []}}

    check_escalations(path, skip_at(6), findings)
    with pytest.raises(AssertionError, match="did not skip"):
        check_escalations(path, {"f": {"graph_breaks": []}}, findings)
    plain_break = {"filename": str(path), "lineno": 6, "gb_id": "GB0124", "frame_skipped": False}
    with pytest.raises(AssertionError, match="did not skip"):  # a break, but no frame skipped anywhere
        check_escalations(path, {"f": {"graph_breaks": [plain_break]}}, findings)
    check_escalations(path, {"f": {"graph_breaks": [plain_break, {**skip_at(9)["f"]["graph_breaks"][0],
                                                                  "filename": "other.py"}]}}, findings)
    with pytest.raises(AssertionError, match="not escalated"):
        check_escalations(path, {"f": {"graph_breaks": skip_at(6)["f"]["graph_breaks"] + skip_at(7)["f"]["graph_breaks"]}},
                          findings)


def test_known_misses_and_false_alarms_are_held_to_the_compiler(tmp_path: Path) -> None:
    """A `miss` line must break (with one of the rule's ids), a `false-alarm` line must not."""
    path = tmp_path / "layers.py"
    path.write_text(
        "import torch\n\ndef f(x):\n    torch.save(x, 'x.pt')  # miss: BL108 (a hook)\n"
        "    return x.sum().item()  # false-alarm: BL101 (why not)\n",
        encoding="utf-8",
    )
    save = {"filename": str(path), "lineno": 4, "gb_id": "GB0007", "gb_type": "skipped", "frame_skipped": False}
    check_positives(path, {"main": {"graph_breaks": [save], "recompiles": [], "fallbacks": [], "errors": []}})
    with pytest.raises(AssertionError, match="did not break here"):
        check_positives(path, {"main": {"graph_breaks": [], "recompiles": [], "fallbacks": [], "errors": []}})
    item = {**save, "lineno": 5, "gb_id": "GB0124"}
    with pytest.raises(AssertionError, match="not a false alarm"):
        check_positives(path, {"main": {"graph_breaks": [save, item], "recompiles": [], "fallbacks": [], "errors": []}})
