"""tools/add_rule.py: the scaffold registers the rule in code order and writes a rule file that
passes the registry's anatomy checks once filled in."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

from testdata import ROOT

from breaklint.rule import DOC_SECTIONS, Rule

spec = importlib.util.spec_from_file_location("add_rule", ROOT / "tools" / "add_rule.py")
add_rule = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
spec.loader.exec_module(add_rule)  # type: ignore[union-attr]


def test_the_entry_goes_in_code_order_and_the_import_in_name_order() -> None:
    text = (ROOT / "rules" / "__init__.py").read_text(encoding="utf-8")
    lines = add_rule._registered(text, "tensor_hash", "TensorHash", "BL199").split("\n")
    entries = [line.rsplit("# ", 1)[1] for line in lines if line.startswith("    ") and "  # BL" in line]
    assert "BL199" in entries and entries == sorted(entries)
    imports = [line for line in lines if line.startswith("from .")]
    at = imports.index("from .tensor_hash import TensorHash")
    assert imports[at - 1] < imports[at] < imports[at + 1]


def test_the_rule_file_has_every_section_and_loads(tmp_path: Path) -> None:
    source = add_rule.RULE.format(code="BL199", name="tensor-hash", cls="TensorHash", stage="DYNAMO")
    module = types.ModuleType("scaffolded")
    exec(compile(source, "scaffolded.py", "exec"), module.__dict__)
    rule = module.TensorHash
    assert issubclass(rule, Rule) and (rule.code, rule.name) == ("BL199", "tensor-hash")
    assert all(f"## {section}" in (rule.__doc__ or "") for section in DOC_SECTIONS)
    assert "# expect: BL199" in add_rule.BAD.format(code="BL199")
    assert sys.modules.get("scaffolded") is None
