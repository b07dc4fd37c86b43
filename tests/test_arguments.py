"""Values followed into called functions (breaklint/analysis/arguments.py): a helper's parameters hold the
join of what every call site in the region passes, and a cached run re-checks the helper when
only its caller changes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from breaklint.infra.cache import CACHE_DIR
from breaklint.check.engine import CheckResult
from testdata import check_tree as run, write_tree as write
from breaklint.analysis.values import MAYBE, PYTHON, SHAPE_INT, TENSOR, UNKNOWN, Kind, Value, join

MASK = Value(Kind.TENSOR, True)

# A boolean mask only breaks when it is a tensor: `x > t` of an unknown `x` is unknown, so BL104
# (dynamic-shape op) only fires on what the callers pass.
PICK = """
    import torch

    def pick(x, t=0.5):
        return x[x > t]
    """


@pytest.fixture(autouse=True)
def _in_project(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)


def found(result: CheckResult, code: str = "BL104") -> set[tuple[str, int, str]]:
    return {(f.path.rsplit("/", 1)[-1], f.span.start_line, f.confidence.value) for f in result.findings
            if f.code == code}


def both(root: Path, code: str = "BL104") -> set[tuple[str, int, str]]:
    """The findings, the same from one process and from two worker processes."""
    alone, pooled = found(run(root), code), found(run(root, jobs=2), code)
    assert alone == pooled
    return alone


def model(calls: str, helper: str = PICK) -> dict[str, str]:
    body = textwrap.indent(textwrap.dedent(calls).strip(), " " * 4)
    return {"helpers.py": helper,
            "model.py": f"import torch\nfrom helpers import pick\n\n@torch.compile\ndef step(x):\n{body}\n"}


def test_bind_places_arguments_as_python_does() -> None:
    import libcst as cst

    from breaklint.analysis.binding import bind
    from breaklint.index.project import FunctionHeader

    fn = cst.parse_statement("def f(self, a, b=1, *rest, c, **kw): pass")
    header = FunctionHeader.of(fn, is_method=True)  # type: ignore[arg-type]

    def bound(call: str, implicit: int = 1) -> tuple[dict[str, str], bool]:
        result = bind(cst.parse_expression(call), header, implicit)  # type: ignore[arg-type]
        return {k: cst.Module([]).code_for_node(v) for k, v in result.args.items()}, result.unpacked

    assert bound("obj.f(x, y, z, c=w)") == ({"a": "x", "b": "y", "c": "w"}, False)  # z goes to *rest
    assert bound("obj.f(c=w, a=x)") == ({"a": "x", "c": "w"}, False)
    assert bound("f(s, x)", implicit=0) == ({"self": "s", "a": "x"}, False)
    assert bound("obj.f(*xs, y)") == ({}, True)  # where y lands is unknown
    assert bound("obj.f(x, **kw)") == ({"a": "x"}, True)


def test_join_keeps_only_what_every_site_agrees_on() -> None:
    assert join([TENSOR, TENSOR]) == TENSOR
    assert join([MASK, MASK]) == MASK
    assert join([MASK, TENSOR]) == TENSOR  # a mask only if a mask everywhere
    assert join([TENSOR, MAYBE]) == MAYBE
    assert join([TENSOR, PYTHON]) == UNKNOWN  # never `.item()`-style certainty from one site
    assert join([SHAPE_INT, PYTHON]) == UNKNOWN
    assert join([PYTHON, PYTHON]) == PYTHON
    assert join([TENSOR, UNKNOWN]) == UNKNOWN


def test_a_tensor_passed_in_makes_the_helper_certain(tmp_path: Path) -> None:
    root = write(tmp_path, model("return pick(torch.randn(4))"))
    assert both(root) == {("helpers.py", 5, "certain")}


def test_an_entry_argument_passed_on_is_a_maybe_tensor(tmp_path: Path) -> None:
    root = write(tmp_path, model("return pick(x, 0.1)"))
    assert both(root) == {("helpers.py", 5, "likely")}


def test_a_tensor_at_one_site_and_a_python_value_at_another_is_unknown(tmp_path: Path) -> None:
    root = write(tmp_path, model("a = pick(torch.randn(4))\nb = pick(3)\nreturn a"))
    assert both(root) == set()


def test_every_site_a_tensor_and_one_a_maybe_is_likely(tmp_path: Path) -> None:
    root = write(tmp_path, model("a = pick(torch.randn(4))\nb = pick(x)\nreturn a + b"))
    assert both(root) == {("helpers.py", 5, "likely")}


def test_keywords_and_defaults_bind_as_python_does(tmp_path: Path) -> None:
    root = write(tmp_path, model("return pick(t=0.1, x=torch.randn(4))"))
    assert both(root) == {("helpers.py", 5, "certain")}
    helper = "import torch\n\ndef pick(t, x=0):\n    return t[x > 1]\n"
    root = write(tmp_path, model("return pick(torch.randn(4))", helper))
    assert both(root) == set()  # x left to its default: `0 > 1` is a Python test
    root = write(tmp_path, model("return pick(torch.randn(4), torch.randn(4))", helper))
    assert both(root) == {("helpers.py", 4, "certain")}


def test_unpacked_arguments_bind_nothing_for_sure(tmp_path: Path) -> None:
    root = write(tmp_path, model("args = (torch.randn(4),)\nreturn pick(*args)"))
    assert both(root) == set()
    helper = "import torch\n\ndef pick(*xs):\n    return xs[0][xs[0] > 0]\n"
    root = write(tmp_path, model("return pick(torch.randn(4))", helper))
    assert both(root) == set()  # `*args` of the callee stays unknown


def test_a_function_passed_as_a_value_keeps_its_own_judgement(tmp_path: Path) -> None:
    root = write(tmp_path, model("a = pick(torch.randn(4))\nreturn list(map(pick, [x]))"))
    assert both(root) == set()  # reached through `map` too: its callers are not all known


def test_a_submodule_forward_takes_what_the_parent_passes(tmp_path: Path) -> None:
    root = write(tmp_path, {"net.py": """
        import torch
        from torch import nn

        class Positions(nn.Module):
            def forward(self, position_ids):
                return position_ids[position_ids > 2]

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.positions = Positions()

            def forward(self, x):
                ids = torch.arange(x.shape[1]).unsqueeze(0)
                return self.positions(ids)

        model = torch.compile(Net())
        """})
    assert both(root) == {("net.py", 7, "certain")}


def test_callers_of_callers_in_the_same_file_pass_their_values_down(tmp_path: Path) -> None:
    root = write(tmp_path, {"m.py": """
        import torch

        def inner(v):
            return v[v > 0]

        def middle(u):
            return inner(u)

        @torch.compile
        def step(x):
            return middle(torch.randn(4))
        """})
    assert both(root) == {("m.py", 5, "certain")}


def test_recursion_terminates_and_learns_nothing_from_itself(tmp_path: Path) -> None:
    root = write(tmp_path, {"m.py": """
        import torch

        def walk(v, depth):
            if depth == 0:
                return v[v > 0]
            return walk(v, depth - 1)

        @torch.compile
        def step(x):
            return walk(torch.randn(4), 2)
        """})
    assert both(root) == set()  # `walk` is one of its own callers: unknown, as before


def test_a_guess_is_not_passed_on(tmp_path: Path) -> None:
    """A helper's parameter used in a torch call is a maybe-tensor by guess (it may be a shape
    int): passing it on as it is tells the next callee nothing."""
    root = write(tmp_path, {"m.py": """
        import torch

        def inner(n, x):
            return x[n > 0]

        def middle(n, x):
            y = torch.zeros(n)
            return inner(n, x)

        @torch.compile
        def step(x):
            return middle(x.shape[0] // 2, x)
        """})
    assert both(root) == set()


def test_editing_only_the_caller_changes_the_callees_finding_in_a_warm_run(tmp_path: Path, monkeypatch,
                                                                          rechecked: list[str]) -> None:
    root = write(tmp_path / "proj", model("return pick(torch.randn(4))"))
    monkeypatch.chdir(root)
    cache = root / CACHE_DIR
    seen = rechecked
    assert found(run(root, cache)) == {("helpers.py", 5, "certain")}
    seen.clear()
    assert found(run(root, cache)) == {("helpers.py", 5, "certain")} and seen == []  # warm: all cached
    write(root, model("return pick(3)"))  # only model.py changes: a Python value is passed now
    warm = found(run(root, cache))
    assert "helpers.py" in seen  # its result read model.py's tree: checked again
    assert warm == found(run(root)) == set()
    write(root, model("return pick(x)"))
    assert found(run(root, cache)) == found(run(root)) == {("helpers.py", 5, "likely")}


# x_transformers' AlibiPositionalBias: a module forward no compile call reaches, so assumed
# compiled as an entry, whose own file calls it as a submodule with shape ints. Dynamo does not
# break there (testdata/rules/BL102/good.py `AttentionWithBias`, compiled whole).
SUBMODULE = """
    import torch
    from torch import nn


    class RelativeBias(nn.Module):
        def __init__(self, heads):
            super().__init__()
            self.slopes = nn.Parameter(torch.ones(heads, 1, 1))

        def forward(self, i, j):
            if i > j:
                i = j
            return self.slopes * torch.arange(j)[None, None, :i].float()


    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.rel_pos = RelativeBias(2)

        def forward(self, x):
            i, j = x.shape[-2], {passed}
            return x + self.rel_pos(i, j)
    """


def assumed(root: Path) -> set[tuple[str, int, str]]:
    """The findings with every module's forward assumed compiled (the default)."""
    return {(f.code, f.span.start_line, f.confidence.value) for f in run(root, assume_forward=True).findings}


def test_an_assumed_forward_takes_what_its_own_file_passes_the_submodule(tmp_path: Path) -> None:
    root = write(tmp_path, {"layers.py": SUBMODULE.replace("{passed}", "x.shape[-1]")})
    assert assumed(root) == set()


def test_an_assumed_forward_passed_a_tensor_somewhere_stays_a_maybe(tmp_path: Path) -> None:
    root = write(tmp_path, {"layers.py": SUBMODULE.replace("{passed}", "x.sum()")})
    assert assumed(root) == {("BL102", 12, "likely"), ("BL101", 14, "likely")}


# transformers' Beit: the submodule's forward hands a size it computed from a window of shape
# ints to a helper in another file (`torch_int`, utils/generic.py), which `int()`s it. Dynamo
# does not break there (testdata/rules/BL101/good.py `WindowedAttention`, compiled whole).
HELPER = """
    def to_int(x):
        return int(x)
    """
WINDOWED = """
    import torch
    from torch import nn

    from helpers import to_int


    class WindowBias(nn.Module):
        def __init__(self):
            super().__init__()
            self.table = nn.Parameter(torch.zeros(4, 4))

        def forward(self, window, dim=None):
            size = 2 * window[0] - 1
            return self.table[: to_int(size)]


    class WindowedAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.bias = WindowBias()

        def forward(self, x):
            window = {window}
            return x + self.bias(window, dim=x.shape[1]).sum()
    """


@pytest.mark.parametrize("window", ["(x.shape[1], x.shape[2] // 2)", "[x.shape[1] // 2 for _ in range(2)]"])
def test_a_helper_in_another_file_takes_what_the_submodule_is_passed(tmp_path: Path, window: str) -> None:
    """The helper's caller is an assumed entry read from another file (a content view: its
    calls are the def's own once read, view.ShallowFunctionInfo.node); what its own file's
    users pass it (a tuple of shape ints: a shape) reaches the helper; what it cannot tell (a
    comprehension of shape ints) leaves the helper's guess."""
    root = write(tmp_path, {"helpers.py": HELPER, "model.py": WINDOWED.replace("{window}", window)})
    assert assumed(root) == (set() if window.startswith("(") else {("BL101", 3, "likely")})


def test_a_union_of_a_tensor_and_a_list_of_ints_is_still_read_as_a_tensor() -> None:
    """`grid_hw: list[int] | Tensor` (HunYuan-VL): a list of Python ints is a Python value,
    but beside a tensor the union reads as before, a tensor that may be the container."""
    import libcst as cst

    from breaklint.analysis.values import PYTHON_ITEMS, _annotation_value

    def value(text: str) -> Value:
        return _annotation_value(cst.parse_expression(text))

    assert value("list[int] | torch.Tensor") == Value(Kind.TENSOR, or_container=True)
    assert value("list[int]") == value("tuple[int, ...]") == value("tuple[int, int] | None") == PYTHON_ITEMS
    assert value("Optional[Tuple[int, int]]") == PYTHON_ITEMS
    assert value("int | None") == value("Optional[str]") == PYTHON
    assert value("int | torch.Tensor") == UNKNOWN  # a number beside a tensor: `isinstance` tells them apart
    assert value("tuple[int, torch.Tensor]") == UNKNOWN
    assert value("Tuple[torch.Tensor, ...]") == value("List[Tensor]") == Value(Kind.UNKNOWN, element=TENSOR)


def test_a_helper_in_another_file_passed_a_tensor_window_still_breaks(tmp_path: Path) -> None:
    root = write(tmp_path, {"helpers.py": HELPER, "model.py": WINDOWED.replace("{window}", "(x.sum(), 2)")})
    assert assumed(root) == {("BL101", 3, "likely")}


# transformers' Beit as written: the window comes from sizes annotated `tuple[int, int] | None`
# divided by a patch size the configuration holds, and the helper (`torch_int`) reads like a
# tensor's (`x.to(...)`) where no value is known. Dynamo: testdata/rules/BL102/good.py `SwinStage`.
TORCH_INT = """
    import torch


    def torch_int(x):
        return x.to(torch.int64) if torch.jit.is_tracing() and isinstance(x, torch.Tensor) else int(x)
    """
BEIT = """
    import torch
    from torch import nn

    from helpers import torch_int


    class RelativePositionBias(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.table = nn.Parameter(torch.zeros(64, config.heads))

        def forward(self, window_size, interpolate_pos_encoding: bool = False, dim_size=None):
            new_height = 2 * window_size[0] - 1
            size = (torch_int(new_height), torch_int(new_height))
            return nn.functional.interpolate(self.table[None, None], size=size, mode="bilinear")


    class Layer(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.config = config
            self.patch_size = config.patch_size
            self.relative_position_bias = RelativePositionBias(config) if config.use_bias else None

        def forward(self, hidden_states, interpolate_pos_encoding: bool = False,
                    resolution: tuple[int, int] | None = None):
            height, width = resolution
            window_size = ({height} // {patch}, width // {patch})
            bias = self.relative_position_bias(window_size, interpolate_pos_encoding, dim_size=hidden_states.shape[1])
            return hidden_states + bias.sum()
    """


@pytest.mark.parametrize("patch", ["self.patch_size", "self.config.patch_size"])  # the layer's, the encoder's
def test_beits_window_from_annotated_sizes_and_the_config_is_no_tensor(tmp_path: Path, patch: str) -> None:
    root = write(tmp_path, {"helpers.py": TORCH_INT,
                            "model.py": BEIT.replace("{height}", "height").replace("{patch}", patch)})
    assert assumed(root) == set()


def test_beits_window_from_a_tensor_is_a_maybe(tmp_path: Path) -> None:
    model = BEIT.replace("{height}", "hidden_states.sum()").replace("{patch}", "self.patch_size")
    root = write(tmp_path, {"helpers.py": TORCH_INT, "model.py": model})
    assert assumed(root) == {("BL101", 6, "likely")}


def test_an_empty_list_annotated_to_hold_tensors_holds_tensors(tmp_path: Path) -> None:
    """`maps: list[Tensor] = []`, filled later: an item of it is a tensor, not a Python value
    indexed by a tensor (BL101's list-indexed-by-a-tensor)."""
    root = write(tmp_path, {"model.py": """
        import torch
        from torch import Tensor


        @torch.compile
        def gather(x, protein_mask):
            maps: list[Tensor] = []
            for b in range(2):
                maps.append(torch.full((8,), -1, dtype=torch.long))
            rows = []
            for b in range(2):
                rows.append(maps[b][protein_mask[b]])
            return rows
        """})
    assert "BL101" not in {code for code, _, _ in assumed(root)}


def test_the_items_of_a_python_container_of_tensors_are_no_python_values(tmp_path: Path) -> None:
    """`list(product([n, ca], repeat=2))` is a Python object whose items hold tensors (PyG's
    ProteinMPNN): indexing one by a tensor is tensor indexing, not a Python list indexed by a
    tensor (BL101). Only a container known to hold Python values (PYTHON_ITEMS) has Python items."""
    root = write(tmp_path, {"model.py": """
        from itertools import product

        import torch


        @torch.compile
        def distances(n, ca, row):
            found = []
            for a, b in list(product([n, ca], repeat=2)):
                found.append(a[row] - b[row])
            return found
        """})
    assert "BL101" not in {code for code, _, _ in assumed(root)}


def test_which_classes_may_build_a_submodule_is_read_from_the_texts() -> None:
    """summary.may_build, the engine's fingerprint of a `builds:<class>` read: every value the
    parsed match takes (a call of the name, through a module, in either arm of a conditional)."""
    from breaklint.index.summary import may_build

    assert may_build("Bias(h)", "Bias") and may_build("layers.Bias (h)", "Bias")
    assert may_build("Bias(config) if config.use_bias else None", "Bias")
    assert not may_build("MyBias(h)", "Bias") and not may_build("Bias", "Bias") and not may_build("Biased(h)", "Bias")
