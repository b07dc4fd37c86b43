"""The command line, driven as a user drives it: a subprocess, real files, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from testdata import HANG_GUARD_S, ROOT

BAD = "import torch\n\n@torch.compile\ndef f(x):\n    return x.sum().item()\n"
CLEAN = "import torch\n\n@torch.compile\ndef f(x):\n    return x + 1\n"


def breaklint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "breaklint", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=HANG_GUARD_S)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "bad.py").write_text(BAD, encoding="utf-8")
    (tmp_path / "clean.py").write_text(CLEAN, encoding="utf-8")
    return tmp_path


def test_text_output_and_exit_one(tree: Path) -> None:
    result = breaklint("check", ".", cwd=tree)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == ("bad.py:5:12: BL101 warning [likely] `.item()` in compiled region `f` via bad.py:3 turns a "
                        "tensor into a Python scalar and forces a graph break")
    assert lines[1] == '    dynamo: "Unsupported Tensor.item() call with capture_scalar_outputs=False" (GB0124)'
    assert lines[2].startswith("    help: keep the value a tensor")
    assert lines[-1].startswith("Found 1 finding (1 warning; 1 in compiled regions; 2 files,")


def test_clean_exit_zero(tree: Path) -> None:
    result = breaklint("check", "clean.py", cwd=tree)
    assert result.returncode == 0
    assert result.stdout.startswith("Found 0 findings")


def test_default_path_is_cwd(tree: Path) -> None:
    assert breaklint("check", cwd=tree).returncode == 1


def test_exit_zero(tree: Path) -> None:
    assert breaklint("check", ".", "--exit-zero", cwd=tree).returncode == 0


def test_json_output(tree: Path) -> None:
    result = breaklint("check", ".", "--format", "json", cwd=tree)
    records = json.loads(result.stdout)
    assert len(records) == 1
    record = records[0]
    assert {k: record[k] for k in ("code", "name", "path", "start_line", "start_column", "end_line",
                                   "end_column", "severity", "confidence", "stage", "gb_ids")} == {
        "code": "BL101", "name": "tensor-to-scalar", "path": "bad.py", "start_line": 5,
        "start_column": 12, "end_line": 5, "end_column": 26, "severity": "warning",
        "confidence": "likely", "stage": "dynamo", "gb_ids": ["GB0124"],
    }
    assert record["region"] == {"entry": "f", "site": "bad.py:3", "call_chain": ["f"]}
    assert record["url"].endswith("/docs/rules/BL101.md") and record["help"]


def test_output_file(tree: Path) -> None:
    result = breaklint("check", ".", "--format", "json", "--output-file", "out.json", cwd=tree)
    assert result.returncode == 1 and result.stdout == ""
    assert json.loads((tree / "out.json").read_text())[0]["code"] == "BL101"


def test_select_ignore_and_scope(tree: Path) -> None:
    assert breaklint("check", ".", "--select", "BL2", cwd=tree).returncode == 0
    assert breaklint("check", ".", "--ignore", "tensor-to-scalar", cwd=tree).returncode == 0
    assert breaklint("check", ".", "--select", "BL101,BL102", cwd=tree).returncode == 1
    (tree / "plain.py").write_text("def g(x):\n    return x.sum().item()\n", encoding="utf-8")
    assert "plain.py" not in breaklint("check", ".", cwd=tree).stdout
    assert "plain.py:2:12: BL101" in breaklint("check", ".", "--scope", "all", cwd=tree).stdout


def test_statistics_and_quiet(tree: Path) -> None:
    assert breaklint("check", ".", "--statistics", cwd=tree).stdout.split() == ["1", "BL101", "tensor-to-scalar"]
    as_json = breaklint("check", ".", "--statistics", "--output-format", "json", cwd=tree)
    assert json.loads(as_json.stdout) == [{"code": "BL101", "name": "tensor-to-scalar", "count": 1}]
    assert as_json.returncode == 1
    refused = breaklint("check", ".", "--statistics", "--output-format", "sarif", cwd=tree)
    assert refused.returncode == 2 and "--statistics prints text or json" in refused.stderr
    quiet = breaklint("check", ".", "--quiet", cwd=tree).stdout
    assert "Found" not in quiet and "BL101" in quiet


def test_usage_and_config_errors_exit_two(tree: Path) -> None:
    assert breaklint("check", "--format", "xml", cwd=tree).returncode == 2
    unknown = breaklint("check", ".", "--select", "BL999", cwd=tree)
    assert unknown.returncode == 2 and "unknown rule code or name 'BL999'" in unknown.stderr
    (tree / "pyproject.toml").write_text("[tool.breaklint]\nselect = 'BL1'\n", encoding="utf-8")
    bad_type = breaklint("check", ".", cwd=tree)
    assert bad_type.returncode == 2
    assert "pyproject.toml: [tool.breaklint] select: expected a list of strings" in bad_type.stderr
    assert breaklint("check", ".", "--target-torch", "latest", cwd=tree).returncode == 2


def test_rule_and_rules_commands(tree: Path) -> None:
    shown = breaklint("rule", "BL101", cwd=tree)
    assert shown.returncode == 0
    assert "BL101 tensor-to-scalar (dynamo)" in shown.stdout and "## How to fix" in shown.stdout
    assert "Flagged:" in shown.stdout and "Not flagged:" in shown.stdout
    assert breaklint("rule", "data-dependent-branch", cwd=tree).stdout.startswith("BL102")
    assert breaklint("rule", "BL999", cwd=tree).returncode == 2
    table = breaklint("rules", cwd=tree).stdout.splitlines()
    assert any(line.split()[:3] == ["dynamo", "BL104", "dynamic-shape-op"] and "GB0036" in line for line in table)


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).with_name("breaklint")
    assert script.exists()
    result = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert result.returncode == 0 and "breaklint" in result.stdout


EXPECTED_EXAMPLE_FINDINGS = {
    ("examples/tinygpt/layers.py", 11, "BL101"),
    ("examples/tinygpt/layers.py", 42, "BL102"),
    ("examples/tinygpt/model.py", 17, "BL201"),
    ("examples/tinygpt/model.py", 25, "BL104"),
}


def test_bundled_examples() -> None:
    result = breaklint("check", "examples/", "--format", "json", cwd=ROOT)
    assert result.returncode == 1
    found = {(r["path"], r["start_line"], r["code"]) for r in json.loads(result.stdout)}
    assert found == EXPECTED_EXAMPLE_FINDINGS
    assert breaklint("check", "examples/clean", cwd=ROOT).returncode == 0


def test_check_never_imports_torch(tmp_path: Path) -> None:
    """`breaklint check` must work where torch is absent: block its import and run."""
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\n\nclass _Block:\n    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('torch', 'numpy', 'pygls'):\n"
        "            raise ImportError(f'blocked: {name}')\n\nsys.meta_path.insert(0, _Block())\n",
        encoding="utf-8",
    )
    env = {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-m", "breaklint", "check", "examples/"], cwd=ROOT,
                            capture_output=True, text=True, env=env, timeout=HANG_GUARD_S)
    assert result.returncode == 1, result.stderr
    assert "BL101" in result.stdout


def test_a_warm_check_does_not_import_libcst(tree: Path) -> None:
    """deferred.py: the command line imports libcst on first use, and a check answered from the
    cache has none; a cold one parses (and gives the same findings)."""
    probe = ("import sys\nsys.argv = ['breaklint', *sys.argv[1:]]\n"
             "try:\n    import breaklint.cli; breaklint.cli.run()\n"
             "except SystemExit as exit:\n    code = exit.code\n"
             "print('LIBCST' if 'libcst._nodes.base' in sys.modules else 'NO-LIBCST', code, file=sys.stderr)\n")

    def run(*options: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", probe, "check", "--format", "json", *options, "."], cwd=tree,
                              capture_output=True, text=True, timeout=HANG_GUARD_S)

    # One job for the cold run: with more, the regions and the rules run in processes of their
    # own, and this one imports libcst only for them to inherit (engine.py, _ready_for_the_check).
    cold, warm = run("--jobs", "1"), run()
    assert cold.stderr.split()[-2:] == ["LIBCST", "1"], cold.stderr
    assert warm.stderr.split()[-2:] == ["NO-LIBCST", "1"], warm.stderr
    assert json.loads(warm.stdout) == json.loads(cold.stdout) and json.loads(cold.stdout)
