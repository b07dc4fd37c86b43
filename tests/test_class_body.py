"""A class body's own bindings from the index (ClassSummary.body) answer what the class's libcst
tree answers (ClassInfo.body_binding): config classes are read from the summary, not parsed."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from breaklint.index.builder import summarize
from breaklint.index.project import ClassInfo
from breaklint.index.view import shallow_module

SOURCE = '''
class Config:
    model_type = "bert"
    hidden: int = 768
    dropout: float
    tied = tie = True
    if True:
        hidden_act = "gelu"

    def __init__(self):
        self.vocab = 10
'''


@pytest.mark.parametrize("name", ["model_type", "hidden", "dropout", "tied", "hidden_act", "vocab", "missing"])
@pytest.mark.parametrize("annotation", [False, True])
def test_the_summary_answers_as_the_tree(name: str, annotation: bool) -> None:
    summary = summarize(SOURCE, "config", False)
    module = shallow_module(summary, Path("config.py"), "config.py", lambda: None)  # type: ignore[arg-type, return-value]
    from_index = module.classes["Config"].body_binding(name, annotation)
    tree = cst.parse_module(SOURCE)
    node = next(n for n in tree.body if isinstance(n, cst.ClassDef))
    from_tree = ClassInfo(module, "Config", node).body_binding(name, annotation)
    assert _code(from_index) == _code(from_tree)


def _code(node: cst.BaseExpression | None) -> str | None:
    """The expression as written, without the parentheses a fragment is parsed in."""
    if node is None:
        return None
    return cst.Module(body=[]).code_for_node(node.with_changes(lpar=[], rpar=[]))


def test_it_reads_what_is_there() -> None:
    module = shallow_module(summarize(SOURCE, "config", False), Path("config.py"), "config.py",
                            lambda: None)  # type: ignore[arg-type, return-value]
    config = module.classes["Config"]
    assert _code(config.body_binding("hidden")) == "768"
    assert _code(config.body_binding("dropout", annotation=True)) == "float"
    assert config.body_binding("dropout") is None and config.body_binding("hidden_act") is None
