"""The linter against the `# expect:` markers of every rule's testdata."""

from __future__ import annotations

from pathlib import Path

import pytest
from testdata import (ROOT, TESTDATA, expected_markers, marker_conditions, marker_reasons, markers, project_dirs,
                      project_files, rule_files)

from breaklint.finding import Confidence, Severity
from breaklint.check.registry import all_rules


def assert_match(findings: list, path: Path) -> None:  # type: ignore[type-arg]
    """The findings in `path` are its expect, possible and false-alarm lines, exactly; the
    possible ones (and only they) are `possible`, severity info; no known miss is flagged."""
    found = {(f.span.start_line, f.code) for f in findings}
    assert found == expected_markers(path) | markers(path, "possible") | markers(path, "false-alarm")
    assert not found & markers(path, "miss"), "a known miss is found now: make it an `expect`"
    possible = markers(path, "possible")
    for f in findings:
        assert (f.confidence is Confidence.POSSIBLE) == ((f.span.start_line, f.code) in possible), f
        assert f.confidence is not Confidence.POSSIBLE or f.severity is Severity.INFO, f


@pytest.mark.parametrize("path", rule_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_findings_match_markers(path: Path, check) -> None:
    assert_match(check([path]).findings, path)


@pytest.mark.parametrize("project", project_dirs(), ids=lambda p: p.name)
def test_project_findings_match_markers(project: Path, check) -> None:
    """A multi-file project is checked whole (its regions come from its own train.py); each
    file's findings must match that file's markers."""
    findings = check([project], root=ROOT).findings
    files = project_files(project)
    assert {(ROOT / f.path).resolve() for f in findings} <= set(files)
    for path in files:
        assert_match([f for f in findings if (ROOT / f.path).resolve() == path], path)


def test_projects_hold_positives_in_other_files_than_their_compile_call() -> None:
    for project in project_dirs():
        # The graph breaks: a recompile's cause (`.eval()`, a grad-mode switch) sits where the
        # compiled model is called, in train.py, and may be marked there.
        flagged = [p for p in project_files(project) if any(code[2] in "13" for _, code in expected_markers(p))]
        assert flagged and all(p.name != "train.py" for p in flagged), project.name
        assert "torch.compile" in (project / "train.py").read_text(encoding="utf-8"), project.name


def test_every_rule_has_bad_and_good_testdata() -> None:
    for rule in all_rules():
        if rule.meta:
            continue
        folder = TESTDATA / rule.code
        assert (folder / "bad.py").is_file(), rule.code
        assert (folder / "good.py").is_file(), rule.code
        assert any(code == rule.code for _, code in expected_markers(folder / "bad.py")), rule.code
        assert not marker_conditions(folder / "good.py", "expect"), rule.code  # in no torch version
        assert not marker_conditions(folder / "good.py", "miss"), rule.code
        assert not marker_conditions(folder / "good.py", "false-alarm"), rule.code


def test_testdata_folders_name_real_rules() -> None:
    codes = {rule.code for rule in all_rules()}
    assert {p.parent.name for p in rule_files()} <= codes


# --- behaviour the markers cannot show: versions, severity, escape hatches ----------------------

from breaklint.finding import Severity  # noqa: E402
from breaklint.versions import TorchVersion, Versions, pick  # noqa: E402

ITEM_IN_LOOP = (
    "import torch\n\n@torch.compile\ndef f(x):\n    total = 0.0\n    for row in x:\n"
    "        total += row.sum().item()\n    return x * total + x.max().item()\n"
)


def _findings(check, tmp_path: Path, source: str, **settings):  # type: ignore[no-untyped-def]
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    return check([path], root=tmp_path, **settings).findings


def test_break_in_a_loop_is_an_error_that_says_the_frame_is_skipped(check, tmp_path: Path) -> None:
    findings = {f.span.start_line: f for f in _findings(check, tmp_path, ITEM_IN_LOOP)}
    assert findings[7].severity is Severity.ERROR and "GB7000" in findings[7].message
    assert findings[8].severity is Severity.WARNING and "skips the whole function" not in findings[8].message
    # GB7000 was registered in 2.11: older targets get the sentence without the id.
    older = {f.span.start_line: f for f in _findings(check, tmp_path, ITEM_IN_LOOP, target_torch=TorchVersion(2, 10))}
    assert older[7].severity is Severity.ERROR and "GB7000" not in older[7].message


LOOP_THAT_RETURNS = (
    "import torch\n\n@torch.compile\ndef f(x, ys):\n    for y in ys:\n"
    "        if (x * y).sum() > 0:\n            return x + y\n    return x\n\n"
    "@torch.compile\ndef g(x, ys):\n    for y in ys:\n        if (x * y).sum() > 0:\n"
    "            x = x + y\n        elif x.shape[0] > 10:\n            return x\n    return x\n\n"
    "@torch.compile\ndef h(x):\n    for _ in range(10):\n        w = int(x.shape[1] * torch.rand(1).item())\n"
    "        if 0 < w <= x.shape[1]:\n            return x[:, :w]\n    return x\n"
)


def test_a_loop_whose_return_comes_before_its_jump_back_resumes(check, tmp_path: Path) -> None:
    """Dynamo's loop check scans the bytecode after a break up to the first return for a jump
    back (analysis/backedge.py): `f`'s arm returns first, a warning; `g`'s first arm jumps back
    to the loop's head before the `elif`'s return, and `h`'s failed chained comparison does too."""
    import sys

    severities = {f.span.start_line: f.severity for f in _findings(check, tmp_path, LOOP_THAT_RETURNS)}
    if sys.version_info[:2] == (3, 11):  # the layouts torch 2.13 was run on (testdata/rules/BL10[12])
        assert severities == {6: Severity.WARNING, 13: Severity.ERROR, 22: Severity.ERROR}
    # Judged for another Python than the one breaklint runs on, the bytecode is not at hand:
    # every break in a loop is taken to skip the frame.
    other = (3, 12) if sys.version_info[:2] != (3, 12) else (3, 11)
    judged = {f.span.start_line: f.severity for f in _findings(check, tmp_path, LOOP_THAT_RETURNS, target_python=other)}
    assert judged == {6: Severity.ERROR, 13: Severity.ERROR, 22: Severity.ERROR}


def test_break_reached_from_a_loop_in_a_caller_of_the_same_file_is_an_error(check, tmp_path: Path) -> None:
    source = (
        "import torch\nfrom torch import nn\n\ndef scale(x):\n    return x * x.sum().item()\n\n"
        "class Block(nn.Module):\n    def forward(self, x):\n        return scale(x)\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.blocks = nn.ModuleList([Block(), Block()])\n\n"
        "    def forward(self, x):\n        for block in self.blocks:\n            x = block(x)\n"
        "        return x\n\nmodel = torch.compile(Net())\n"
    )
    (finding,) = _findings(check, tmp_path, source)
    assert finding.severity is Severity.ERROR and finding.region.path == ("Net.forward", "Block.forward", "scale")
    assert "reached from a loop in `Net.forward`" in finding.message and "GB7000" in finding.message
    older = _findings(check, tmp_path, source, target_torch=TorchVersion(2, 10))
    assert older[0].severity is Severity.ERROR and "GB7000" not in older[0].message
    # Called only after the loop: the chain has no loop, a plain warning.
    after = source.replace("            x = block(x)\n        return x", "            x = x + 1\n        return self.blocks[0](x)")
    (plain,) = _findings(check, tmp_path, after)
    assert plain.severity is Severity.WARNING and "reached from a loop" not in plain.message


def test_target_torch_turns_rules_and_ids_on_and_off(check, tmp_path: Path) -> None:
    source = (
        "import logging\nimport torch\nfrom torch import nn\n\nlog = logging.getLogger(__name__)\n\n"
        "@torch.compile\ndef f(x):\n    log.info('x')\n    return nn.Linear(8, 8)(x)\n"
    )
    new = {f.code: f for f in _findings(check, tmp_path, source, target_torch=TorchVersion(2, 13))}
    assert new["BL106"].gb_ids == ("GB0291",) and "BL114" in new
    old = {f.code: f for f in _findings(check, tmp_path, source, target_torch=TorchVersion(2, 8))}
    assert "BL114" not in old  # nn.Parameter construction was traced before 2.9
    assert old["BL106"].gb_ids == () and "logging.Logger method not supported" in old["BL106"].message


def test_capture_scalar_outputs_set_at_module_level_silences_item(check, tmp_path: Path) -> None:
    source = (
        "import torch\n\ntorch._dynamo.config.capture_scalar_outputs = True\n\n@torch.compile\n"
        "def f(x):\n    return x * x.sum().item() + len(x.tolist())\n"
    )
    assert [f.span.start_line for f in _findings(check, tmp_path, source)] == [7]  # .tolist() still breaks
    # Below the compile too: Dynamo skips the patch's wrapper frame and compiles f under the
    # patch (torch 2.13; testdata/rules/BL101/good.py `captured_below_compile`). A patch that
    # switches it off, or patches another key, does not silence it.
    patched = (
        "import torch\n\n@torch.compile\n@torch._dynamo.config.patch({patch})\n"
        "def f(x):\n    return x * x.sum().item()\n"
    )
    assert _findings(check, tmp_path, patched.format(patch="capture_scalar_outputs=True")) == []
    assert _findings(check, tmp_path, patched.format(patch='"capture_scalar_outputs", True')) == []
    for patch in ("capture_scalar_outputs=False", "verbose=True"):
        assert [f.code for f in _findings(check, tmp_path, patched.format(patch=patch))] == ["BL101"]
    wrapped = (
        "import torch\n\ndef f(x):\n    return x * x.sum().item()\n\n"
        "fast = torch._dynamo.config.patch(capture_scalar_outputs={flag})(torch.compile(f))\n"
    )
    assert _findings(check, tmp_path, wrapped.format(flag="True")) == []
    assert [f.code for f in _findings(check, tmp_path, wrapped.format(flag="False"))] == ["BL101"]


def test_capture_scalar_outputs_patched_around_every_call_silences_item(check, tmp_path: Path) -> None:
    source = (
        "import torch\n\n@torch.compile\ndef f(x):\n    return x * x.sum().item()\n\n"
        "def g(x):\n    return x * x.max().item()\n\n"
        "def run(x):\n    fast = torch.compile(g)\n{outside}"
        "    with torch._dynamo.config.patch(capture_scalar_outputs=True):\n        f(x)\n        fast(x)\n"
    )
    assert _findings(check, tmp_path, source.format(outside="    g(x)  # eager: not a compiled call\n")) == []
    mixed = {f.span.start_line for f in _findings(check, tmp_path, source.format(outside="    f(x)\n    fast(x)\n"))}
    assert mixed == {5, 8}  # a call outside the patch compiles without it


def test_fullgraph_captures_dynamic_shapes_only_from_torch_2_10(check, tmp_path: Path) -> None:
    source = "import torch\n\n@torch.compile(fullgraph=True)\ndef f(x):\n    return torch.nonzero(x)\n"
    assert _findings(check, tmp_path, source, target_torch=TorchVersion(2, 13)) == []
    assert [f.code for f in _findings(check, tmp_path, source, target_torch=TorchVersion(2, 9))] == ["BL104"]


def test_allow_rnn_silences_rnn_module(check, tmp_path: Path) -> None:
    source = (
        "import torch\nfrom torch import nn\n\ntorch._dynamo.config.allow_rnn = {flag}\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.rnn = nn.GRU(8, 8)\n\n"
        "    def forward(self, x):\n        return self.rnn(x)[0]\n"
    )
    assert _findings(check, tmp_path, source.format(flag="True")) == []
    assert [f.code for f in _findings(check, tmp_path, source.format(flag="False"))] == ["BL111"]


def test_rules_listing_shows_stage_versions_and_status() -> None:
    from click.testing import CliRunner

    from breaklint.cli import cli

    result = CliRunner().invoke(cli, ["rules"])
    assert result.exit_code == 0
    rows = {line.split()[1]: line.split() for line in result.output.splitlines()[1:]}
    assert rows["BL114"][:5] == ["dynamo", "BL114", "parameter-created-in-region", "2.9+", "stable"]
    assert rows["BL101"][3] == "all" and "GB0124" in rows["BL101"][5]
    assert rows["BL001"][4] == "meta" and rows["BL110"][4] == "preview"
    assert set(rows) == {rule.code for rule in all_rules()}


# --- the file-scope hook (rule.py: file_visit_<Node> / file_leave_<Node> / end_file) ------------

FILE_WITH_REGION = (
    "import torch\n\nmodel = torch.compile(torch.nn.Linear(8, 8), mode='reduce-overhead')\n\n"
    "@torch.compile\ndef f(x):\n    if not torch.compiler.is_compiling():\n        print(x.sum().item())\n"
    "    return x * 2\n\n"
    "def serve(batches):\n    for x in batches:\n        y = model(f(x))\n        print(y.argmax())\n"
)


def test_file_hooks_see_every_node_once_in_the_shared_traversal(check, tmp_path: Path, monkeypatch) -> None:
    import ast

    from breaklint.rules.cudagraph_call_with_grad import CudagraphCallWithGrad

    seen: list[int] = []
    ended: list[str] = []
    visit_call, end_file = CudagraphCallWithGrad.file_visit_Call, CudagraphCallWithGrad.end_file

    def counting_visit(self, node):  # type: ignore[no-untyped-def]
        seen.append(self.ctx.file.line(node))
        visit_call(self, node)

    def counting_end(self):  # type: ignore[no-untyped-def]
        ended.append(self.ctx.file.display)
        end_file(self)

    monkeypatch.setattr(CudagraphCallWithGrad, "file_visit_Call", counting_visit)
    monkeypatch.setattr(CudagraphCallWithGrad, "end_file", counting_end)
    findings = _findings(check, tmp_path, FILE_WITH_REGION)
    calls = sorted(n.lineno for n in ast.walk(ast.parse(FILE_WITH_REGION)) if isinstance(n, ast.Call))
    # Outside regions and inside the untraced `if not is_compiling()` block too, each call once.
    assert sorted(seen) == calls and len(ended) == 1
    assert [(f.code, f.span.start_line) for f in findings] == [("BL506", 13)]
    seen.clear(), ended.clear()
    assert _findings(check, tmp_path, FILE_WITH_REGION.replace("reduce-overhead", "default")) == []
    assert seen == [] and ended == []  # no CUDA-graph mode in the text: the hooks are not called


def test_a_failing_file_hook_is_bl005_and_the_other_rules_still_report(check, tmp_path: Path, monkeypatch) -> None:
    from breaklint.rules.cudagraph_call_with_grad import CudagraphCallWithGrad

    def explode(self, node):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")

    monkeypatch.setattr(CudagraphCallWithGrad, "file_visit_Call", explode)
    source = FILE_WITH_REGION.replace("    if not torch.compiler.is_compiling():\n        print", "    print")
    findings = {(f.code, f.span.start_line) for f in _findings(check, tmp_path, source)}
    assert ("BL005", 1) in findings and ("BL106", 7) in findings and ("BL101", 7) in findings
    assert not any(code == "BL506" for code, _ in findings)


def test_only_branches_that_just_warn_or_raise_under_python_tests_are_possible(check, tmp_path: Path) -> None:
    source = (
        "import logging\nimport warnings\nimport torch\n\nlog = logging.getLogger(__name__)\n\n"
        "@torch.compile\ndef f(x, scale=None, verbose=False, mode='a'):\n"
        "    if scale is not None:\n        warnings.warn('deprecated')\n"            # 10: possible
        "    if verbose:\n        msg = f'{x.shape}'\n        log.info(msg)\n"           # 13: possible (a message)
        "    elif mode == 'b':\n        log.info('b')\n        x = x * 2\n"           # 15: certain (work too)
        "    else:\n        pass\n"
        "    if x.sum() > 0:\n        warnings.warn('positive')\n"                     # 20: certain (tensor test)
        "    if mode not in ('a', 'b'):\n        print('bad mode')\n        raise ValueError(mode)\n"  # 22: possible
        "    print('always')\n"                                                         # 24: certain
        "    return x\n"
    )
    found = {(f.span.start_line, f.code): f for f in _findings(check, tmp_path, source)}
    side_effects = {line: f.confidence for (line, code), f in found.items() if code == "BL106"}
    assert side_effects == {10: Confidence.POSSIBLE, 13: Confidence.POSSIBLE, 15: Confidence.CERTAIN,
                            20: Confidence.CERTAIN, 22: Confidence.POSSIBLE, 24: Confidence.CERTAIN}
    assert found[(10, "BL106")].severity is Severity.INFO and "`scale is not None`" in found[(10, "BL106")].message
    assert found[(24, "BL106")].severity is Severity.WARNING
    assert (19, "BL102") in found


@pytest.mark.parametrize("torch", ["2.11", "2.13"])
@pytest.mark.parametrize("path", rule_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_findings_match_markers_for_each_measured_torch(path: Path, torch: str, check) -> None:
    """The markers of both measured versions (torch 2.11 on the GPU machine, 2.13 CPU here):
    the findings for a `target-torch` are the markers that hold for it."""
    target = TorchVersion.parse(torch)
    found = {(f.span.start_line, f.code) for f in check([path], target_torch=target).findings}
    assert found == expected_markers_for(path, target)


def expected_markers_for(path: Path, target: TorchVersion) -> set[tuple[int, str]]:
    return markers(path, "expect", target) | markers(path, "possible", target) | markers(path, "false-alarm", target)


def _by_line(check, path: Path, **settings) -> dict[int, object]:  # type: ignore[no-untyped-def]
    return {f.span.start_line: f for f in check([path], **settings).findings}


def _line_of(path: Path, text: str) -> int:
    return next(n for n, row in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in row)


def test_patterns_that_break_only_up_to_torch_2_11_are_reported_only_there(check) -> None:
    """`locals()` and a deep copy of a dict broke on torch 2.11 and are traced on 2.13."""
    cases = [(TESTDATA / "BL109" / "bad.py", "return x * len(locals())", "GB0059"),
             (TESTDATA / "BL116" / "bad.py", "options = copy.deepcopy(DEFAULTS)", "GB0179")]
    for path, text, gb_id in cases:
        line = _line_of(path, text)
        old = _by_line(check, path, target_torch=TorchVersion(2, 11))
        assert old[line].gb_ids == (gb_id,), old[line].message  # type: ignore[attr-defined]
        assert line not in _by_line(check, path, target_torch=TorchVersion(2, 12))
        assert line not in _by_line(check, path, target_torch=TorchVersion(2, 13))


def test_messages_quote_the_id_the_target_torch_gives_for_the_pattern(check) -> None:
    """Dynamo names one pattern differently in 2.11 and 2.13; 2.12 (not measured) quotes both."""
    cases = [(TESTDATA / "BL116" / "bad.py", "saved = copy.deepcopy(x)", "GB0179", "GB4198"),
             (TESTDATA / "BL101" / "bad.py", "return x * SCALES[i]", "GB0070", "GB0124"),
             (TESTDATA / "BL302" / "bad.py", "self.proj.register_forward_hook(", "GB0059", "GB0467"),
             (TESTDATA / "BL116" / "bad.py", "alias = copy.copy(x)", "GB0007", "GB0208"),
             (TESTDATA / "BL102" / "bad.py", "if attn_output.shape != (attn_output", "GB0170", "GB6622")]
    for path, text, old_id, new_id in cases:
        line = _line_of(path, text)
        old = _by_line(check, path, target_torch=TorchVersion(2, 11))[line]
        new = _by_line(check, path, target_torch=TorchVersion(2, 13))[line]
        assert old.gb_ids == (old_id,) and new_id not in old.message, old.message  # type: ignore[attr-defined]
        assert new.gb_ids == (new_id,) and old_id not in new.message, new.message  # type: ignore[attr-defined]
    hooks = TESTDATA / "BL302" / "bad.py"
    between = _by_line(check, hooks, target_torch=TorchVersion(2, 12))[_line_of(hooks, "self.proj.register_forward_hook(")]
    both = '"Failed to trace builtin operator" (GB0059) or "setattr() on unsupported type"'
    assert both in between.message  # type: ignore[attr-defined]


def test_a_break_in_a_while_test_is_a_break_in_the_loop_by_python_version(check) -> None:
    """The test's own data-dependent jump is a break in the loop from Python 3.12 (GB7000 with
    torch 2.11 on 3.12, none with 2.13 on 3.11); a call in the test is one on either Python."""
    branch = TESTDATA / "BL102" / "bad.py"
    line = _line_of(branch, "while x.abs().sum() < 1000")
    new = _by_line(check, branch, target_python=(3, 12))[line]
    assert new.severity is Severity.ERROR and "in a `while` test" in new.message  # type: ignore[attr-defined]
    assert "GB7000" in new.message  # type: ignore[attr-defined]
    old = _by_line(check, branch, target_python=(3, 11))[line]
    assert old.severity is Severity.WARNING and "GB7000" not in old.message  # type: ignore[attr-defined]
    item = TESTDATA / "BL101" / "bad.py"
    line = _line_of(item, "while x.abs().sum().item()")
    for python in ((3, 11), (3, 12)):
        assert _by_line(check, item, target_python=python)[line].severity is Severity.ERROR  # type: ignore[attr-defined]


def test_version_conditions_on_markers(tmp_path: Path) -> None:
    path = tmp_path / "bad.py"
    path.write_text(
        "x = 1  # expect: BL109 (torch<=2.11)\ny = 2  # expect: BL116 (torch 2.12+: traced before)\n"
        "z = 3  # expect: BL101 (torch 2.8-2.12)\nw = 4  # miss: BL108 (a hook)\n",
        encoding="utf-8",
    )
    assert markers(path, "expect", TorchVersion(2, 11)) == {(1, "BL109"), (3, "BL101")}
    assert markers(path, "expect", TorchVersion(2, 13)) == {(2, "BL116")}
    assert marker_reasons(path, "expect", TorchVersion(2, 13)) == {(2, "BL116"): "traced before"}
    assert marker_reasons(path, "miss", TorchVersion(2, 13)) == {(4, "BL108"): "a hook"}
    assert str(marker_conditions(path, "expect")[(1, "BL109")][0]) == "<=2.11"


def test_version_ranges() -> None:
    texts = ["<=2.11", "2.12+", "2.8-2.12", "all"]
    assert [str(Versions.parse(text)) for text in texts] == texts
    assert TorchVersion(2, 11) in Versions(high="2.11") and TorchVersion(2, 12) not in Versions(high="2.11")
    table = {"GB0070": Versions(high="2.12"), "GB0124": Versions(low="2.12")}
    assert [pick(table, TorchVersion(2, minor)) for minor in (11, 12, 13)] == [("GB0070",), ("GB0070", "GB0124"), ("GB0124",)]
    with pytest.raises(ValueError):
        Versions.parse("2.11")
