"""The join of static findings with runtime events, on synthetic events (no torch needed)."""

from __future__ import annotations

from pathlib import Path

from breaklint.confirm.join import CONFIRMED, NOT_REACHED, NOT_REPRODUCED, join
from breaklint.finding import Confidence, Severity, Span
from breaklint.check.registry import find_rule

SOURCE = "import torch\n\n@torch.compile\ndef f(x):\n    y = x * 2\n    return y.sum().item()\n\n\ndef g(x):\n    return x\n"


def finding(code: str, line: int):
    rule = find_rule(code)
    return rule.make_finding("m.py", Span(line, 5, line, 20), "msg", Confidence.CERTAIN)


def test_statuses_and_runtime_only(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(SOURCE, encoding="utf-8")
    events = [
        {"kind": "graph_break", "stage": "dynamo", "filename": str(path), "lineno": 6, "gb_type": "Unsupported Tensor.item() call with capture_scalar_outputs=False", "gb_id": "GB0124"},
        {"kind": "graph_break", "stage": "aot_eager", "filename": str(path), "lineno": 6, "gb_type": "Unsupported Tensor.item() call with capture_scalar_outputs=False", "gb_id": "GB0124"},
        {"kind": "recompile", "stage": "dynamo", "filename": str(path), "lineno": 3, "function": "f", "reasons": ["x.size()[0] == 8"], "probe": True},
        {"kind": "cudagraph_skip", "stage": "cudagraphs", "filename": str(path), "lineno": 3, "reason": "mutated inputs (1 instances)", "function_level": True},
        {"kind": "inductor_fallback", "stage": "inductor", "filename": str(path), "lineno": 3, "op": "_cdist_forward.default", "function_level": True},
    ]
    findings = [finding("BL101", 6), finding("BL201", 5), finding("BL501", 5), finding("BL102", 10)]
    result = join(findings, events, {str(path): {4, 5, 6}}, tmp_path)
    status = {(j.finding.code, j.finding.span.start_line): j.status for j in result.judged}
    # BL101 by the break at its line; BL201 by the recompile of its function; BL501 by the
    # function-level skip; BL102 in g, which never ran.
    assert status == {("BL101", 6): CONFIRMED, ("BL201", 5): CONFIRMED, ("BL501", 5): CONFIRMED, ("BL102", 10): NOT_REACHED}
    evidence = {j.finding.code: j.evidence for j in result.judged}
    assert evidence["BL101"] == 'graph break in dynamo: "Unsupported Tensor.item() call with capture_scalar_outputs=False" (GB0124)'
    assert "recompile probe" in evidence["BL201"]
    # The fallback matched no finding: runtime-only, informational. The break seen in two stages
    # was used; nothing else is left.
    assert [(f.code, f.severity) for f in result.runtime_only] == [("BL490", Severity.INFO)]


def test_not_reproduced_when_the_line_ran(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(SOURCE, encoding="utf-8")
    result = join([finding("BL101", 6)], [], {str(path): {6}}, tmp_path)
    assert [j.status for j in result.judged] == [NOT_REPRODUCED]


def test_events_elsewhere_do_not_confirm(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(SOURCE, encoding="utf-8")
    other = {"kind": "graph_break", "stage": "dynamo", "filename": str(tmp_path / "other.py"), "lineno": 6,
             "gb_type": "Data-dependent branching", "gb_id": "GB0170"}
    wrong_kind = {"kind": "recompile", "stage": "dynamo", "filename": str(path), "lineno": 6, "function": "f", "reasons": []}
    result = join([finding("BL101", 6)], [other, wrong_kind], {str(path): {6}}, tmp_path)
    assert [j.status for j in result.judged] == [NOT_REPRODUCED]
    assert sorted(f.code for f in result.runtime_only) == ["BL190", "BL290"]


def test_partitioned_op_confirms_and_says_so(tmp_path: Path) -> None:
    """Graph partitioning cuts an op out of CUDA graphs instead of skipping them: the event
    confirms the CUDA-graph finding at its line, and its evidence names the partition."""
    path = tmp_path / "m.py"
    path.write_text(SOURCE, encoding="utf-8")
    events = [{"kind": "cudagraph_skip", "stage": "cudagraphs", "filename": str(path), "lineno": 5,
               "reason": "cpu ops (DeviceCopy)", "effect": "partition"},
              {"kind": "cudagraph_skip", "stage": "cudagraphs", "filename": str(path), "lineno": 6,
               "reason": "a new CUDA graph for each distinct input size (9 sizes)", "effect": "rerecord"}]
    result = join([finding("BL502", 5)], events, {str(path): {5, 6}}, tmp_path)
    assert [(j.status, j.evidence) for j in result.judged] == [
        (CONFIRMED, "op kept out of CUDA graphs (graph partition): cpu ops (DeviceCopy)")]
    assert [(f.code, f.span.start_line) for f in result.runtime_only] == [("BL590", 6)]
    assert "CUDA graphs re-recorded" in result.runtime_only[0].message


def test_evidence_says_when_dynamo_stopped_tracing_the_function(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(SOURCE, encoding="utf-8")
    base = {"kind": "graph_break", "stage": "dynamo", "filename": str(path), "lineno": 6,
            "gb_type": "Attempted to wrap RNN, GRU, or LSTM", "gb_id": "GB0014"}
    said = {}
    for name, flags in (("resumed", {}), ("rest", {"rest_skipped": True}), ("frame", {"frame_skipped": True})):
        [judged] = join([finding("BL101", 6)], [{**base, **flags}], {str(path): {6}}, tmp_path).judged
        said[name] = judged.evidence
    assert said["resumed"] == 'graph break in dynamo: "Attempted to wrap RNN, GRU, or LSTM" (GB0014)'
    assert said["rest"].endswith("; Dynamo cannot resume after it: the rest of the function runs eagerly")
    assert said["frame"].endswith("; Dynamo gave up on the whole frame, which runs eagerly")


CALL_SITES = ("import torch\n\n@torch.compile\ndef f(x, n: int):\n    return x * n\n\n\n"
              "def run(x):\n    f(x, 2)\n    f(x, 3)\n")


def test_call_site_predictions_join_the_recompile_of_the_compiled_function(tmp_path: Path, check) -> None:
    """A BL211 finding sits at the call that changes `n` (line 10); Dynamo reports the recompile at
    `f` (its code starts at line 3, the decorator): the finding's `recompiles` line joins them. Without the recompile it is not
    reproduced (the call ran), and a recompile of another function does not confirm it."""
    path = tmp_path / "m.py"
    path.write_text(CALL_SITES, encoding="utf-8")
    findings = [f for f in check([path], root=tmp_path).findings if f.code == "BL211"]
    assert [(f.span.start_line, f.recompiles) for f in findings] == [(10, 4)]  # its `def` line
    recompile = {"kind": "recompile", "stage": "dynamo", "filename": str(path), "lineno": 3, "function": "f",
                 "reasons": ["n == 2"]}
    result = join(findings, [recompile], {str(path): {9, 10}}, tmp_path)
    assert [(j.status, j.evidence) for j in result.judged] == [(CONFIRMED, "recompile of `f` in dynamo: n == 2")]
    assert result.runtime_only == []
    assert [j.status for j in join(findings, [], {str(path): {10}}, tmp_path).judged] == [NOT_REPRODUCED]
    elsewhere = {**recompile, "lineno": 8, "function": "run"}
    assert [j.status for j in join(findings, [elsewhere], {str(path): {10}}, tmp_path).judged] == [NOT_REPRODUCED]
