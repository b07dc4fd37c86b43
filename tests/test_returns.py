"""Values followed through a callee's `return` (breaklint/analysis/returns.py): a call of a project
function gives the join of its returns, a tuple return unpacked gives each target its element,
and a cached run re-checks the caller when only the callee's file changes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from breaklint.infra.cache import CACHE_DIR
from breaklint.check.engine import CheckResult
from testdata import check_tree as run, write_tree as write


@pytest.fixture(autouse=True)
def _in_project(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)


def found(result: CheckResult, codes: tuple[str, ...] = ("BL101", "BL102")) -> set[tuple[str, int, str, str]]:
    return {(f.path.rsplit("/", 1)[-1], f.span.start_line, f.code, f.confidence.value) for f in result.findings
            if f.code in codes}


def both(root: Path) -> set[tuple[str, int, str, str]]:
    """The findings, the same from one process and from two worker processes."""
    alone, pooled = found(run(root)), found(run(root, jobs=2))
    assert alone == pooled
    return alone


def attention(helper: str, use: str = "return probs.narrow(-1, n, probs.size(-1) - n)") -> dict[str, str]:
    """A compiled layer whose forward takes `n` from its static helper's return (`[0]`) and
    narrows with it (`use`) at line 9; the helper's body follows."""
    body = textwrap.indent(textwrap.dedent(helper).strip(), " " * 8)
    return {"model.py": f"""\
import torch


class Attention(torch.nn.Module):
    def forward(self, x):
        mask = x > 0
        n = self._count(mask)[0]
        probs = x.softmax(-1)
        {use}

    @staticmethod
    def _count(mask):
{body}


layer = torch.compile(Attention())
"""}


def test_a_tuple_return_unpacked_gives_each_name_its_element(tmp_path: Path) -> None:
    root = write(tmp_path, {"model.py": """\
        import torch


        def _global_indices(mask):
            counts = mask.long().sum(dim=1)
            return counts.max(), counts.shape[0]


        @torch.compile
        def local_probs(x):
            n, rows = _global_indices(x > 0)
            a = x.narrow(-1, n, x.size(-1) - n)
            b = x.narrow(-1, rows, 1)
            return a, b
        """})
    # `n` is the tensor element (a guessed-tensor parameter's max: likely); `rows` a shape int.
    assert both(root) == {("model.py", 12, "BL101", "likely")}


def test_an_element_taken_by_index_is_that_element(tmp_path: Path) -> None:
    root = write(tmp_path, attention("counts = mask.long().sum(dim=1)\nreturn counts.max(), counts"))
    assert both(root) == {("model.py", 9, "BL101", "likely")}
    python = write(tmp_path / "python", attention("counts = mask.long().sum(dim=1)\nreturn mask.shape[-1] // 2, counts"))
    assert both(python) == set()


def test_a_list_comparison_with_a_returned_tensor_breaks(tmp_path: Path) -> None:
    use = "assert list(probs.size()) == [x.shape[0], n]\n        return probs"
    root = write(tmp_path, attention("counts = mask.long().sum(dim=1)\nreturn counts.max(), counts", use))
    assert both(root) == {("model.py", 9, "BL102", "likely")}


@pytest.mark.parametrize("helper", [
    # a tensor on one path, a Python int on another: the join knows nothing
    "if mask.dim() == 2:\n    return mask.long().sum(dim=1).max(), mask\nreturn 0, mask",
    # may fall off the end: None on that path
    "if mask.dim() == 2:\n    return mask.long().sum(dim=1).max(), mask",
    # not a tuple display on every path
    "pair = (mask.long().sum(dim=1).max(), mask)\nreturn pair",
    # a parameter that is a tensor only by a guess from the body, handed back as it is
    "mask.nonzero()\nreturn mask, mask",
])
def test_what_is_not_known_on_every_path_is_unknown(tmp_path: Path, helper: str) -> None:
    assert both(write(tmp_path, attention(helper))) == set()


def test_decorators_generators_and_recursion_learn_nothing(tmp_path: Path) -> None:
    root = write(tmp_path, {"model.py": """\
        import functools

        import torch


        def cached(fn):
            return fn


        @cached
        def wrapped(mask):
            return mask.long().sum().max(), 1


        def counts(mask):
            yield mask.long().sum().max(), 1


        def again(mask, depth):
            if depth:
                return again(mask, depth - 1)
            return again(mask, 0)


        @torch.compile
        def forward(x):
            a = wrapped(x > 0)[0]
            b = again(x > 0, 2)
            return x.narrow(-1, a, 1) + x.narrow(-1, b, 1)
        """})
    assert both(root) == set()


def test_a_staticmethod_of_a_torch_decorated_helper_is_followed(tmp_path: Path) -> None:
    root = write(tmp_path, {"model.py": """\
        import torch


        class Attention(torch.nn.Module):
            @staticmethod
            @torch.no_grad()
            def _count(mask):
                return mask.long().sum(dim=1).max(), mask

            @classmethod
            def _total(cls, mask):
                return torch.ones(()) * mask.long().sum()

            def forward(self, x):
                n, _ = self._count(x > 0)
                t = Attention._total(x > 0)
                a = x.narrow(-1, n, 1)
                return a + x.narrow(-1, t, 1)


        layer = torch.compile(Attention())
        """})
    assert both(root) == {("model.py", 17, "BL101", "likely"), ("model.py", 18, "BL101", "likely")}


def test_a_helper_of_a_helper_is_followed_a_few_calls_deep(tmp_path: Path) -> None:
    root = write(tmp_path, {"model.py": """\
        import torch


        def _max(counts):
            return torch.amax(counts)


        def _count(mask):
            counts = torch.sum(mask.long(), dim=1)
            return _max(counts), counts


        @torch.compile
        def forward(x):
            n, counts = _count(x > 0)
            return x.narrow(-1, n, 1)
        """})
    assert both(root) == {("model.py", 16, "BL101", "likely")}


CROSS_MODEL = """\
    import torch

    from utils import global_indices


    @torch.compile
    def forward(x):
        n, counts = global_indices(x > 0)
        return x.narrow(-1, n, x.size(-1) - n)
    """


def test_a_callee_in_another_file_is_read_and_recorded(tmp_path: Path, monkeypatch, rechecked: list[str]) -> None:
    root = write(tmp_path / "proj", {"model.py": CROSS_MODEL, "utils.py": """\
        def global_indices(mask):
            counts = mask.long().sum(dim=1)
            return counts.max(), counts
        """})
    monkeypatch.chdir(root)
    assert both(root) == {("model.py", 9, "BL101", "likely")}
    cache = root / CACHE_DIR
    seen = rechecked
    assert found(run(root, cache)) == {("model.py", 9, "BL101", "likely")}
    seen.clear()
    assert found(run(root, cache)) == {("model.py", 9, "BL101", "likely")} and seen == []  # warm: all cached
    write(root, {"utils.py": """\
        def global_indices(mask):
            return mask.shape[-1] // 2, mask.long().sum(dim=1)
        """})  # only utils.py changes: the count is a Python int now
    warm = found(run(root, cache))
    assert "model.py" in seen  # its result read utils.py's tree: checked again
    assert warm == found(run(root)) == set()
