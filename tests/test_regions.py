"""Which functions are compiled regions: every entry-point form, reachability and its cuts."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from breaklint.versions import TorchVersion
from testdata import write_tree as project

ITEM = "x.sum().item()"


@pytest.fixture(autouse=True)
def _in_project(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # paths print relative to the working directory


def flagged(result) -> set[tuple[str, int]]:
    return {(f.path.rsplit("/", 1)[-1], f.span.start_line) for f in result.findings if f.code == "BL101"}


def regions(result) -> dict[int, str]:
    return {f.span.start_line: f.region.describe() for f in result.findings if f.region}


DECORATOR_FORMS = [
    ("import torch", "@torch.compile"),
    ("import torch", "@torch.compile()"),
    ("import torch", '@torch.compile(mode="reduce-overhead", fullgraph=False)'),
    ("import torch as t", "@t.compile"),
    ("from torch import compile", "@compile"),
    ("from torch import compile as tc", "@tc(dynamic=True)"),
    ("import torch", "@torch.compiler.compile"),
    ("import torch._dynamo", '@torch._dynamo.optimize("inductor")'),
    ("import torch._dynamo as dynamo", "@dynamo.optimize()"),
]


@pytest.mark.parametrize("imports,decorator", DECORATOR_FORMS)
def test_decorator_forms(tmp_path, check, imports, decorator) -> None:
    root = project(tmp_path, {"m.py": f"{imports}\n\n{decorator}\ndef f(x):\n    return {ITEM}\n"})
    assert flagged(check([root], root=root)) == {("m.py", 5)}


def test_local_compile_function_is_not_torch(tmp_path, check) -> None:
    root = project(tmp_path, {"m.py": f"def compile(fn):\n    return fn\n\n@compile\ndef f(x):\n    return {ITEM}\n"})
    assert flagged(check([root], root=root)) == set()


def test_uncompiled_function_is_silent_unless_scope_all(tmp_path, check) -> None:
    root = project(tmp_path, {"m.py": f"def f(x):\n    return {ITEM}\n"})
    assert flagged(check([root], root=root)) == set()
    result = check([root], root=root, scope="all")
    assert flagged(result) == {("m.py", 2)}
    assert result.findings[0].region is None


def test_compile_call_on_function_and_partial(tmp_path, check) -> None:
    root = project(tmp_path, {"m.py": f"""
        import functools
        import torch

        def f(x):
            return {ITEM}

        def g(x, k):
            return {ITEM}

        fast_f = torch.compile(f)
        fast_g = torch.compile(functools.partial(g, k=2))
        """})
    result = check([root], root=root)
    assert flagged(result) == {("m.py", 6), ("m.py", 9)}
    assert regions(result)[6] == "`f` via m.py:11"


def test_a_compiled_lambda_compiles_what_its_body_calls(tmp_path, check) -> None:
    """Dynamo traces the lambda and inlines its calls: functions and module instances it calls
    are regions, also where it is made in a def; a function it only names, or a call of one of
    its own parameters, is not."""
    root = project(tmp_path, {"pyproject.toml": "[tool.breaklint]\nassume-forward-compiled = false\n", "m.py": f"""
        import torch

        def f(x):
            return {ITEM}

        def named(x):
            return {ITEM}

        def shadowed(x):
            return {ITEM}

        class Net(torch.nn.Module):
            def forward(self, x):
                return {ITEM}

        model = Net()
        fast_f = torch.compile(lambda x: f(x) + 1 if named is not None else x)
        fast_model = torch.compile(lambda x: model(x) * 2)
        odd = torch.compile(lambda shadowed: shadowed(1))

        def step(x):
            return torch.compile(lambda: f(x))()
        """})
    result = check([root], root=root)
    assert flagged(result) == {("m.py", 5), ("m.py", 15)}
    assert regions(result)[5] == "`f` via m.py:18"
    assert regions(result)[15] == "`Net.forward` via m.py:19"


def test_compile_model_instance_and_submodule_and_method_form(tmp_path, check) -> None:
    root = project(tmp_path, {"m.py": f"""
        import torch
        from torch import nn

        class A(nn.Module):
            def forward(self, x):
                return {ITEM}

        class B(nn.Module):
            def forward(self, x):
                return {ITEM}

        class C(nn.Module):
            def forward(self, x):
                return {ITEM}

        class Outer(nn.Module):
            def __init__(self):
                super().__init__()
                self.b = B()
                self.b = torch.compile(self.b)

        model = A().to("cpu")
        fast = torch.compile(model)
        c = C()
        c.compile()
        """})
    result = check([root], root=root, assume_forward_compiled=False)
    assert flagged(result) == {("m.py", 7), ("m.py", 11), ("m.py", 15)}
    assert regions(result) == {7: "`A.forward` via m.py:24", 11: "`B.forward` via m.py:21", 15: "`C.forward` via m.py:26"}


def test_reachability_across_files(tmp_path, check) -> None:
    """The issue's case: compile in train.py, `.item()` two calls down in layers.py."""
    root = project(tmp_path, {
        "layers.py": f"""
            import torch
            from torch import nn

            def scale(x):
                return {ITEM}

            class Inner(nn.Module):
                def forward(self, x):
                    return self.helper(x)

                def helper(self, x):
                    return scale(x)

            def load(x):
                return {ITEM}
            """,
        "train.py": """
            import torch
            from torch import nn
            from layers import Inner, load

            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.inner = Inner()

                def forward(self, x):
                    return self.inner(x)

            batch = load(torch.ones(2))
            model = torch.compile(Net())
            """,
    })
    result = check([root], root=root, assume_forward_compiled=False)
    assert flagged(result) == {("layers.py", 6)}
    finding = result.findings[0]
    assert finding.region.describe() == "`Net.forward` via train.py:15"
    assert finding.region.path == ("Net.forward", "Inner.forward", "Inner.helper", "scale")


def test_package_imports_super_and_module_list(tmp_path, check) -> None:
    root = project(tmp_path, {
        "pkg/__init__.py": "from .blocks import Block\n",
        "pkg/base.py": f"""
            from torch import nn

            class Base(nn.Module):
                def forward(self, x):
                    return {ITEM}
            """,
        "pkg/blocks.py": """
            from .base import Base
            from . import util

            class Block(Base):
                def forward(self, x):
                    x = util.prep(x)
                    return super().forward(x)
            """,
        "pkg/util.py": f"def prep(x):\n    return x * {ITEM}\n",
        "run.py": """
            import torch
            from torch import nn
            from pkg import Block

            class Stack(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.ModuleList([Block() for _ in range(3)])

                def forward(self, x):
                    for layer in self.layers:
                        x = layer(x)
                    return x

            stack = torch.compile(Stack())
            """,
    })
    result = check([root], root=root, assume_forward_compiled=False)
    assert flagged(result) == {("base.py", 6), ("util.py", 2)}


def test_layers_iterated_through_enumerate_and_zip_are_reached(tmp_path, check) -> None:
    root = project(tmp_path, {
        "run.py": f"""
            import torch
            from torch import nn

            class Layer(nn.Module):
                def forward(self, x):
                    return x * {ITEM}

            class Gate(nn.Module):
                def forward(self, x):
                    return x + {ITEM}

            class Encoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layer = nn.ModuleList([Layer() for _ in range(2)])
                    self.gates = nn.ModuleList([Gate() for _ in range(2)])

                def forward(self, x):
                    for i, layer_module in enumerate(self.layer):
                        x = layer_module(x)
                    for gate, _ in zip(self.gates, range(2)):
                        x = gate(x)
                    return x

            encoder = torch.compile(Encoder())
            """,
    })
    result = check([root], root=root, assume_forward_compiled=False)
    assert flagged(result) == {("run.py", 7), ("run.py", 11)}


def test_disable_cuts_reachability(tmp_path, check) -> None:
    root = project(tmp_path, {"m.py": f"""
        import torch

        @torch.compiler.disable
        def logged(x):
            return {ITEM}

        @torch._dynamo.disable(recursive=False)
        def shallow(x):
            return inner(x) + {ITEM}

        def inner(x):
            return {ITEM}

        @torch.compile
        def f(x):
            return logged(x) + shallow(x)
        """})
    assert flagged(check([root], root=root)) == {("m.py", 13)}


def test_calls_dynamo_never_traces_are_cut(tmp_path, check) -> None:
    # Reached only under a test Dynamo knows while tracing: `and`/`or` of is_compiling() checks,
    # a library's is_torchdynamo_compiling() wrapper, and `torch.compiler.disable(fn)(x)`. The
    # helpers live in another file, so the pre-pass summary's call edges are what is cut.
    root = project(tmp_path, {"helpers.py": f"""
        def eager_stats(x):
            return {ITEM}

        def other_stats(x):
            return {ITEM}

        def traced(x):
            return {ITEM}

        def wrapped(x):
            return {ITEM}
        """, "m.py": """
        import torch
        from helpers import eager_stats, other_stats, traced, wrapped
        from transformers.utils import is_torchdynamo_compiling

        @torch.compile
        def f(x, verbose=True):
            if not torch.compiler.is_compiling() and verbose:
                eager_stats(x)
            if torch.jit.is_scripting() or is_torchdynamo_compiling():
                pass
            else:
                other_stats(x)
            torch.compiler.disable(wrapped)(x)
            if verbose and torch.compiler.is_compiling():
                traced(x)
            return x
        """})
    assert flagged(check([root], root=root)) == {("helpers.py", 9)}  # traced() only


ESCAPE_HATCHES = [
    ("import torch", '@torch.library.custom_op("lib::op", mutates_args=())'),
    ("from torch.library import custom_op", '@custom_op("lib::op", mutates_args=())'),
    ("import torch._library.custom_ops as co", '@co.custom_op("lib::op", mutates_args=(), device_types="cpu")'),
    ("from torch._dynamo.decorators import leaf_function", "@leaf_function"),
    ("import torch._dynamo.decorators as dd", '@dd.leaf_function(mutates_args={"x"})'),
]


@pytest.mark.parametrize("imports,decorator", ESCAPE_HATCHES)
def test_custom_ops_and_leaf_functions_are_not_traced(tmp_path, check, imports, decorator) -> None:
    """Dynamo calls their fake at compile time and their body eagerly at run time (torch 2.13):
    nothing in the body or below it is a region."""
    root = project(tmp_path, {"m.py": f"""
        import torch
        {imports}

        def below(x):
            return {ITEM}

        {decorator}
        def op(x: torch.Tensor) -> torch.Tensor:
            print("eager")
            return below(x) * {ITEM}

        @torch.compile
        def f(x):
            return op(x) + 1
        """})
    result = check([root], root=root)
    assert [f for f in result.findings if f.code.startswith("BL1")] == []


def test_custom_op_call_form_leaves_the_function_traced_where_called_directly(tmp_path, check) -> None:
    root = project(tmp_path, {"m.py": f"""
        import torch

        def impl(x: torch.Tensor) -> torch.Tensor:
            return x * {ITEM}

        op = torch.library.custom_op("lib::op", impl, mutates_args=())

        @torch.compile
        def through_op(x):
            return op(x)

        @torch.compile
        def direct(x):
            return impl(x)
        """})
    result = check([root], root=root)
    assert {(f.code, f.span.start_line, f.region.entry) for f in result.findings} == {
        ("BL403", 11, "through_op"), ("BL101", 5, "direct")}


@pytest.mark.parametrize("spelling", ["torch._dynamo.nonstrict_trace", "torch._dynamo.decorators.nonstrict_trace"])
def test_nonstrict_trace_body_breaks_only_on_data_dependent_values(tmp_path, check, spelling) -> None:
    """torch 2.13: print / graph_break() / a growing global in a nonstrict_trace body neither
    break nor recompile; `.item()`, a tensor branch and nonzero make the non-strict trace fail
    (GB0251 at the call) and then break in the body as usual. Inductor places the fallback of an
    op in the body at the call, so BL401 is silent in the body."""
    root = project(tmp_path, {"m.py": f"""
        import torch
        import torch._dynamo.decorators

        SEEN = []

        def deeper(x):
            print("deeper")
            SEEN.append(torch.linalg.svd(x).S)
            return x.nonzero()

        @{spelling}
        def helper(x: torch.Tensor):
            print("inside")
            torch._dynamo.graph_break()
            if x.sum() > 0:
                x = x * 2
            return deeper(x) * {ITEM}

        @torch.compile
        def f(x):
            return helper(x)
        """})
    result = check([root], root=root)
    # The call breaks once (GB0251): reported by the first rule that saw the body break.
    assert {(f.code, f.span.start_line) for f in result.findings} == {
        ("BL104", 10), ("BL102", 16), ("BL101", 18), ("BL101", 22)}
    body = [f for f in result.findings if f.span.start_line != 22]
    assert all(f.region.nonstrict and "GB0251" in f.message for f in body)
    (call,) = [f for f in result.findings if f.span.start_line == 22]
    assert not call.region.nonstrict and call.gb_ids == ("GB0251",) and "(line 18)" in call.message
    older = check([root], root=root, target_torch=TorchVersion(2, 8))  # GB0251 registered in 2.9
    assert older.findings and all("GB0251" not in f.message and f.gb_ids != ("GB0251",) for f in older.findings)


def test_autograd_function_apply_reaches_forward_and_backward(tmp_path, check) -> None:
    root = project(tmp_path, {
        "fns.py": f"""
            import torch
            from torch.autograd import Function

            def helper(x):
                return {ITEM}

            class Scale(Function):
                @staticmethod
                def forward(ctx, x):
                    return x * helper(x)

                @staticmethod
                def backward(ctx, grad):
                    return grad * grad.max().item()

                @staticmethod
                def unused(x):
                    return {ITEM}

            class NotAFunction:
                @staticmethod
                def apply(x):
                    return {ITEM}
            """,
        "m.py": """
            import torch
            from fns import Scale, NotAFunction

            @torch.compile
            def f(x):
                return Scale.apply(x) + 1

            def g(x):
                return NotAFunction.apply(x)  # not compiled
            """,
    })
    result = check([root], root=root)
    assert flagged(result) == {("fns.py", 6), ("fns.py", 15)}
    chains = {f.span.start_line: f.region.path for f in result.findings}
    assert chains[6] == ("f", "Scale.forward", "helper")


def test_modules_passed_to_apply_are_followed_into_the_layers_it_runs(tmp_path, check) -> None:
    """Reformer's shape: `_ReversibleFunction.apply(h, self.layers, masks)`, whose forward runs
    `for i, (layer, mask) in enumerate(zip(layers, masks)): layer(h)`."""
    root = project(tmp_path, {
        "rev.py": f"""
            import torch
            from torch import nn
            from torch.autograd import Function

            class Block(nn.Module):
                def forward(self, h):
                    return {ITEM}

            class Reversible(Function):
                @staticmethod
                def forward(ctx, hidden, layers, masks):
                    for i, (layer, mask) in enumerate(zip(layers, masks)):
                        hidden = layer(hidden * mask)
                    return hidden

                @staticmethod
                def backward(ctx, grad):
                    return grad, None, None
            """,
        "m.py": """
            import torch
            from torch import nn
            from rev import Block, Reversible

            class Encoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.ModuleList([Block() for _ in range(2)])

                def forward(self, h):
                    return Reversible.apply(h, self.layers, torch.ones(2))

            model = torch.compile(Encoder())
            """,
    })
    result = check([root], root=root, assume_forward_compiled=False)
    assert flagged(result) == {("rev.py", 8)}
    chains = {f.span.start_line: f.region.path for f in result.findings}
    assert chains[8] == ("Encoder.forward", "Reversible.forward", "Block.forward")


def test_modules_passed_to_a_helper_are_followed_only_where_it_calls_them(tmp_path, check) -> None:
    root = project(tmp_path, {"m.py": f"""
        import torch
        from torch import nn

        class Used(nn.Module):
            def forward(self, h):
                return {ITEM}

        class Counted(nn.Module):
            def forward(self, h):
                return {ITEM}  # never called: its parameters are only counted

        def run_all(blocks, h):
            for block in blocks:
                h = block(h)
            return h

        def size(block):
            return sum(p.numel() for p in block.parameters())

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = nn.ModuleList([Used(), Used()])
                self.counted = Counted()

            def forward(self, h):
                return run_all(self.blocks, h) * size(self.counted)

        model = torch.compile(Net())
        """})
    assert flagged(check([root], root=root, assume_forward_compiled=False)) == {("m.py", 7)}


def test_a_submodule_chosen_by_a_flag_may_be_either(tmp_path, check) -> None:
    root = project(tmp_path, {"m.py": f"""
        import torch
        from torch import nn

        class Axial(nn.Module):
            def forward(self, ids):
                return {ITEM}

        class Learned(nn.Module):
            def forward(self, ids):
                return ids * 2

        class Net(nn.Module):
            def __init__(self, axial=True):
                super().__init__()
                self.positions = (
                    Axial() if axial else Learned()
                )

            def forward(self, ids):
                return self.positions(ids)

        model = torch.compile(Net())
        """})
    assert flagged(check([root], root=root, assume_forward_compiled=False)) == {("m.py", 7)}


def test_autograd_function_that_is_not_applied_is_not_a_region(tmp_path, check) -> None:
    root = project(tmp_path, {"m.py": f"""
        import torch

        class Scale(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * {ITEM}

        @torch.compile
        def f(x):
            return x + 1
        """})
    assert flagged(check([root], root=root)) == set()


def test_assume_forward_switch(tmp_path, check) -> None:
    root = project(tmp_path, {"m.py": f"""
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                return {ITEM}

        class NotAModule:
            def forward(self, x):
                return {ITEM}
        """})
    result = check([root], root=root)
    assert flagged(result) == {("m.py", 6)}
    # Said as an assumption a newcomer can turn off, never as a compile call that was seen.
    assert regions(result)[6] == ("`Net.forward` (assumed compiled: no torch.compile of it was seen; "
                                  "assume-forward-compiled = false turns this off)")
    assumed = next(f for f in result.findings if f.span.start_line == 6)
    assert assumed.region.assumed
    # `certain` would read as "certainly compiled": an assumed region is at most `likely`.
    assert assumed.confidence.value == "likely"
    assert flagged(check([root], root=root, assume_forward_compiled=False)) == set()


def test_a_region_seen_compiled_stays_certain(tmp_path, check) -> None:
    root = project(tmp_path, {"m.py": """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x: torch.Tensor):
                return x.sum().item()

        class Aug(nn.Module):
            def forward(self, x: torch.Tensor):
                return x.sum().item()

        model = torch.compile(Net())
        """})
    found = {f.region.entry: (f.confidence.value, f.region.assumed) for f in check([root], root=root).findings}
    assert found == {"Net.forward": ("certain", False), "Aug.forward": ("likely", True)}


def test_configured_entry_points(tmp_path, check) -> None:
    root = project(tmp_path, {"pkg/__init__.py": "", "pkg/step.py": f"def train_step(x):\n    return {ITEM}\n"})
    assert flagged(check([root], root=root)) == set()
    for spec in ("pkg.step:train_step", "pkg/step.py:train_step"):
        result = check([root], root=root, entry_points=(spec,))
        assert flagged(result) == {("step.py", 2)}, spec
        assert regions(result)[2] == f"`train_step` via config `{spec}`"


AUGMENTATIONS = {
    "pkg/__init__.py": "",
    "pkg/base.py": """
        from torch import nn

        class Base(nn.Module):
            def forward(self, x):
                return self.apply_transform(x) + 1

            def apply_transform(self, x):
                raise NotImplementedError
        """,
    "pkg/aug.py": f"""
        from .base import Base as AugmentationBase

        class Jiggle(AugmentationBase):
            def apply_transform(self, x):
                return x * {ITEM}

        class Flip(AugmentationBase):
            def apply_transform(self, x):
                return x.flip(-1) + x.max().item()
        """,
}


def test_self_calls_run_the_instances_override(tmp_path, check) -> None:
    """`self.apply_transform` in an inherited `forward` is the compiled instance's override, in
    another file (its base imported under another name); a sibling's is not compiled, and the
    base's placeholder never runs."""
    root = project(tmp_path, {**AUGMENTATIONS, "train.py": """
        import torch
        from pkg.aug import Jiggle

        model = torch.compile(Jiggle())
        """})
    result = check([root], root=root, assume_forward_compiled=False)
    assert {(f.path.rsplit("/", 1)[-1], f.span.start_line, f.code) for f in result.findings} == {("aug.py", 6, "BL101")}
    assert regions(result)[6] == "`Base.forward` via train.py:5"
    # Where the instance's class is not known (every forward compiled by assumption), every
    # subclass's override is compiled code, and the placeholder still is not.
    result = check([root], root=root)
    assert {(f.path.rsplit("/", 1)[-1], f.span.start_line, f.code) for f in result.findings} == {
        ("aug.py", 6, "BL101"), ("aug.py", 10, "BL101")}


def test_a_configured_entry_point_may_be_an_inherited_method(tmp_path, check) -> None:
    root = project(tmp_path, AUGMENTATIONS)
    result = check([root], root=root, assume_forward_compiled=False, entry_points=("pkg.aug:Flip.forward",))
    assert flagged(result) == {("aug.py", 10)}


def test_nested_function_and_reference_passed_as_argument(tmp_path, check) -> None:
    root = project(tmp_path, {"m.py": f"""
        import torch
        from torch.utils.checkpoint import checkpoint

        def heavy(x):
            return {ITEM}

        @torch.compile
        def f(x):
            def inner(y):
                return y.max().item()
            return inner(x) + checkpoint(heavy, x)
        """})
    assert flagged(check([root], root=root)) == {("m.py", 6), ("m.py", 11)}


def test_nonstrict_call_is_reported_only_where_dynamo_traces_it(tmp_path, check) -> None:
    root = project(tmp_path, {"m.py": f"""
        import torch

        @torch._dynamo.nonstrict_trace
        def helper(x):
            return x * {ITEM}

        @torch._dynamo.nonstrict_trace
        def clean(x):
            print("fine")
            return x * 2

        @torch.compile
        def f(x):
            if not torch.compiler.is_compiling():
                x = helper(x)  # never traced
            return clean(x)

        @torch.compile
        def g(x):
            return helper(x)
        """})
    found = {(f.code, f.span.start_line) for f in check([root], root=root).findings}
    assert found == {("BL101", 6), ("BL101", 21)}


MIXERS = """
    import torch
    from torch import nn

    class LSTMMixer(nn.Module):
        def forward(self, x):
            return x * x.sum().item()

    class CellMixer(nn.Module):
        def forward(self, x):
            return x * 2

    class Block(nn.Module):
        def __init__(self, dim, rnn_layer=LSTMMixer):
            super().__init__()
            self.mixer = rnn_layer(dim)

        def forward(self, x):
            return self.mixer(x)

    class Stage(nn.Module):
        def __init__(self, dim, depth, rnn_layer=LSTMMixer):
            super().__init__()
            blocks = [Block(dim, rnn_layer=rnn_layer) for _ in range(depth)]
            self.blocks = nn.Sequential(*blocks)

        def forward(self, x):
            return self.blocks(x)
"""


@pytest.mark.parametrize("built,reached", [
    ("Stage(8, 2)", True),  # the defaults: LSTMMixer all the way down
    ("Stage(8, 2, rnn_layer=LSTMMixer)", True),
    ("Stage(8, 2, CellMixer)", False),  # a positional argument replaces the default
    ("Stage(8, 2, rnn_layer=CellMixer)", False),
])
def test_a_class_passed_as_an_argument_is_the_submodule_built(tmp_path, check, built, reached) -> None:
    """`self.mixer = rnn_layer(dim)`: the class comes from the parameter's default or from the
    argument the builder passed (through a stage, into its blocks), not from both."""
    root = project(tmp_path, {"m.py": MIXERS + f"\n    fast = torch.compile({built})\n"})
    found = flagged(check([root], root=root, assume_forward_compiled=False))
    assert found == ({("m.py", 7)} if reached else set())


CONFIGURED = {
    "configuration.py": """
        class EncoderConfig:
            def __init__(self, hidden=8, gated=False, impl="eager", **kwargs):
                self.hidden = hidden
                self.gated = gated
                self.impl = impl
                self.eps = kwargs.pop("eps", 1e-5)
    """,
    "model.py": f"""
        import torch
        from torch import nn
        from configuration import EncoderConfig

        def fused(x):
            return {ITEM}

        class Gated(nn.Module):
            def forward(self, x):
                return {ITEM}

        class Plain(nn.Module):
            def __init__(self, config):
                super().__init__()
                self.config = config

            def forward(self, x):
                if self.config.impl == "fused":
                    return fused(x)
                return x

        class Net(nn.Module):
            def __init__(self, config: EncoderConfig):
                super().__init__()
                self.mix = Gated() if config.gated else Plain(config)

            def forward(self, x):
                return self.mix(x)

        fast = torch.compile(Net(EncoderConfig()))
    """,
}


def test_code_only_a_setting_reaches_is_possible_and_says_which(tmp_path, check) -> None:
    root = project(tmp_path, CONFIGURED)
    findings = {f.span.start_line: f for f in check([root], root=root, assume_forward_compiled=False).findings}
    assert set(findings) == {7, 11}
    assert all(f.confidence.value == "possible" and f.severity.value == "info" for f in findings.values())
    assert "only when `config.gated` is true; the default is False" in findings[11].message
    assert "only when `self.config.impl == 'fused'`; the default is 'eager'" in findings[7].message


@pytest.mark.parametrize("edit,likely", [
    ("gated=False", set()),
    ("gated=True", {11}),  # the default builds Gated: its break is a likely one again
    ('impl="fused"', {7}),
    ("self.gated = gated", set()),
    ("self.gated = kwargs.pop('gated', False)", set()),
    ("self.gated = make(gated)", {11}),  # not a stored default: reachable as before
])
def test_the_defaults_are_read_from_the_configuration_class(tmp_path, check, edit, likely) -> None:
    files = dict(CONFIGURED)
    text = files["configuration.py"]
    if edit.startswith("self.gated"):
        text = text.replace("self.gated = gated", edit)
    else:
        key = edit.split("=")[0]
        text = text.replace(f"{key}={'False' if key == 'gated' else chr(34) + 'eager' + chr(34)}", edit)
    files["configuration.py"] = text
    root = project(tmp_path, files)
    findings = check([root], root=root, assume_forward_compiled=False).findings
    assert {f.span.start_line for f in findings if f.confidence.value != "possible"} == likely
    assert {f.span.start_line for f in findings} == {7, 11}


SEEDED = {
    "configuration.py": """
        class HashConfig:
            def __init__(self, hidden=8, seed=None):
                self.hidden = hidden
                self.seed = seed
    """,
    "model.py": f"""
        import torch
        from torch import nn
        from configuration import HashConfig

        class Hashing(nn.Module):
            def __init__(self, config, layer_idx=None):
                super().__init__()
                self.config = config
                self.seed = config.seed
                self.layer_idx = layer_idx

            def forward(self, x):
                if self.seed is not None:
                    return {ITEM}
                return x

        class Reseeded(Hashing):
            def __init__(self, config, layer_idx=None):
                super().__init__(config, layer_idx)
                self.seed = 0

        def run_layers(x, layers):
            for layer in layers:
                x = layer(x)
            return x

        class Encoder(nn.Module):
            def __init__(self, config):
                super().__init__()
                self.layers = nn.ModuleList([Hashing(config, i) for i in range(2)])

            def forward(self, x):
                return run_layers(x, self.layers)

        class PreTrained(nn.Module):
            config: HashConfig

        class Model(PreTrained):
            def __init__(self, config):
                super().__init__()
                self.encoder = Encoder(config)

            def forward(self, x):
                return self.encoder(x)
    """,
}


@pytest.mark.parametrize("edit,possible", [
    ("", True),  # the layers reached through a helper's parameter, built from an unannotated `config`
    ("self.seed = self.config.seed", True),
    ("self.seed = int(config.seed)", False),  # not a copy of the setting
    ("self.seed = config.seed\n        if layer_idx:\n            self.seed = None", False),  # assigned twice
    ("if layer_idx is not None:\n            self.seed = config.seed", False),  # not every instance holds it
    ("def reseed(self, seed):\n        self.seed = seed", False),  # the module's own state
    ("Reseeded(config, i)", False),  # the class built assigns it again
    ("config: int", False),  # the class annotation names no configuration class
])
def test_an_attribute_copied_from_the_configuration_is_its_setting(tmp_path, check, edit, possible) -> None:
    """`self.seed = config.seed` in `__init__`, and nowhere else in the classes built: a test
    of `self.seed` is judged by the configuration's default, found back through the builders
    and the class-level `config: HashConfig` of the top model, which the region is entered at."""
    text = textwrap.dedent(SEEDED["model.py"])
    if edit.startswith("def "):
        text = text.replace("    def forward(self, x):\n        if self.seed", f"    {edit}\n\n    def forward(self, x):\n"
                            "        if self.seed", 1)
    elif edit.startswith("Reseeded"):
        text = text.replace("Hashing(config, i)", edit)
    elif edit.startswith("config:"):
        text = text.replace("config: HashConfig", edit)
    elif edit:
        text = text.replace("self.seed = config.seed", edit)
    root = project(tmp_path, {**SEEDED, "model.py": text})
    result = check([root], root=root, assume_forward_compiled=False, entry_points=("model:Model.forward",))
    [finding] = [f for f in result.findings if f.code == "BL101"]
    assert (finding.confidence.value == "possible") == possible, finding.message
    if possible:
        assert "only when `self.seed is not None`; the default is None" in finding.message


COMPOSED = {
    "frame.py": """
        import torch
        from torch import nn

        class Frame(nn.Module):
            def __init__(self, proposals, heads, transform):
                super().__init__()
                self.proposals = proposals
                self.heads = heads
                self.transform = transform

            def forward(self, x):
                x = self.transform(x)
                return self.transform.finish(self.heads(self.proposals(x)))
        """,
    "parts.py": f"""
        from torch import nn

        class Proposals(nn.Module):
            def forward(self, x):
                return x * {ITEM}

        class Heads(nn.Module):
            def forward(self, x):
                return x + 1

        class Special(Heads):
            def forward(self, x):
                return x * {ITEM}

        class Transform(nn.Module):
            def forward(self, x):
                return x

            def finish(self, x):
                return x * {ITEM}
        """,
    "detectors.py": """
        from frame import Frame
        from parts import Heads, Proposals, Special, Transform

        class Detector(Frame):
            def __init__(self, heads=None):
                proposals = Proposals()
                if heads is None:
                    heads = Heads()
                super().__init__(proposals, heads, Transform())

        class SpecialDetector(Detector):
            def __init__(self):
                super().__init__(heads=Special())
        """,
}


@pytest.mark.parametrize("built,reached", [
    ("Detector()", {6, 21}),  # Proposals.forward, Transform.finish; Heads has nothing to report
    ("SpecialDetector()", {6, 14, 21}),  # its `heads` replaces the default Heads(): Special.forward
    ("Frame(Proposals(), Special(), Transform())", {6, 14, 21}),  # the frame built with its parts
])
def test_instances_a_constructor_is_given_are_what_forward_calls(tmp_path, check, built, reached) -> None:
    """torchvision's detectors: the frame stores what its subclasses build and pass up in
    `super().__init__(...)` (or what its own builder passes), and its `forward` calls them and
    their methods. Only the compile in train.py makes a region here."""
    train = f"import torch\nfrom detectors import Detector, SpecialDetector\nfrom frame import Frame\n" \
            f"from parts import Proposals, Special, Transform\n\nmodel = torch.compile({built})\n"
    root = project(tmp_path, {**COMPOSED, "train.py": train})
    result = check([root], root=root, assume_forward_compiled=False)
    assert flagged(result) == {("parts.py", line) for line in reached}
    assert {f.region.describe() for f in result.findings if f.code == "BL101"} == {"`Frame.forward` via train.py:6"}
