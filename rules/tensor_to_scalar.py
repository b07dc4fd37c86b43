from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.patterns import method_call
from breaklint.rule import FileContext
from breaklint.values import Kind
from breaklint.versions import TorchVersion

from ._nonstrict import NONSTRICT_SAYS, NonstrictCallSites
from ._support import compile_option, config_enabled, config_patch_block

# What Dynamo 2.13 says for each form (read from real runs, see testdata/rules/BL101).
METHOD_SAYS = {"item": ("GB0124",), "tolist": ("GB0109", "GB0033")}  # float / integer tensors
SCALAR_BUILTINS = frozenset({"int", "float", "bool", "complex"})  # all go through .item()
# From 2.10, fullgraph=True implies capture_scalar_outputs (torch/__init__.py, "opts into
# unbacked semantics"; shared/reference/dynamo-observability.md 1.3).
FULLGRAPH_CAPTURES_SINCE = TorchVersion(2, 10)


class TensorToScalar(NonstrictCallSites):
    """## What it does
    Finds a tensor turned into a Python number or list inside a compiled region: `t.item()`,
    `t.tolist()`, `int(t)`, `float(t)`, `bool(t)`, and the implicit `t.__index__()` of
    `range(t)`, a Python list indexed by a tensor (`scales[i]`) and a slice with tensor bounds
    (`x[:n]`).

    ## Why is this bad?
    The value only exists once the kernels have run, so Dynamo cannot put it in the graph: it ends
    the graph there, runs the Python code eagerly, and starts a new graph after it (a graph
    break). Each break costs a device sync, a trip through Python and the fusion across it.

    ## How to fix
    Keep the value a tensor (`torch.where`, masking, `clamp`) and only call `.item()` outside the
    compiled function, for logging. If the scalar must be used, set
    `torch._dynamo.config.capture_scalar_outputs = True` so that Dynamo traces it as a symbolic
    integer (or use `fullgraph=True`, which implies it from torch 2.10).

    ## When it is fine
    Outside compiled code, in a debugging path that is off in production, or when
    `capture_scalar_outputs` is on: `.item()` and the casts are not reported when the file (or
    the entry point's file) sets `torch._dynamo.config.capture_scalar_outputs = True`, when the
    entry point is decorated with `@torch._dynamo.config.patch(capture_scalar_outputs=True)`
    (above or below its `@torch.compile`) or wrapped by it at module level (`fast =
    torch._dynamo.config.patch(capture_scalar_outputs=True)(f)`), or when it is compiled with
    `fullgraph=True` for torch 2.10 and newer. `.tolist()` of a float tensor still breaks then.
    Inside a `with torch._dynamo.config.patch(...):` block in the region nothing is reported:
    Dynamo breaks at the `with` itself (BL105) and runs the whole function uncompiled. Nor when
    every call of the compiled function in its own file (`f(x)` for `@torch.compile def f`,
    `fast(x)` for `fast = torch.compile(f)`) sits in a `with
    torch._dynamo.config.patch(capture_scalar_outputs=True):` block; one call outside it
    compiles without the patch and breaks.

    ## Dynamo says
    `Unsupported Tensor.item() call with capture_scalar_outputs=False` (GB0124) for `.item()`,
    `int()`, `float()`, `bool()`, list indexing and tensor slice bounds; `Tensor.tolist() with
    non-integer tensor` (GB0109) or `Data dependent operator` (GB0033, integer tensors) for
    `.tolist()`; `Failed to trace builtin operator` (GB0059) for `range(tensor)`.
    At the call of a `nonstrict_trace` function whose body does this: `Unsupported output type for
    nonstrict_trace-ed function` (GB0251).
    """

    code = "BL101"
    name = "tensor-to-scalar"
    stage = Stage.DYNAMO
    applies_nonstrict = True  # still breaks in a nonstrict_trace body (and at its call: GB0251)
    message = "{what} in {region} turns a tensor into a Python scalar and forces a graph break"
    help = (
        "keep the value a tensor (torch.where, masking), move the conversion out of the compiled "
        "code, or set torch._dynamo.config.capture_scalar_outputs = True"
    )
    dynamo_says = {
        "GB0124": "Unsupported Tensor.item() call with capture_scalar_outputs=False",
        "GB0109": "Tensor.tolist() with non-integer tensor",
        "GB0033": "Data dependent operator",
        "GB0059": "Failed to trace builtin operator",
        **NONSTRICT_SAYS,
    }
    bad = (
        "import torch\n\n@torch.compile\ndef f(x):\n    return x * x.sum().item()\n",
        "import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    return x * int(x.max())\n",
    )
    good = (
        "import torch\n\ndef f(x):\n    return x.sum().item()  # not compiled\n",
        "import torch\n\n@torch.compile\ndef f(x):\n    return x * int(x.shape[0])\n",
    )


    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._captures: dict[object, bool] = {}
        self._patched: list[cst.With] = []  # `with config.patch(...)` blocks: Dynamo skips the frame

    def visit_With(self, node: cst.With) -> None:
        if config_patch_block(node, self.ctx.module):
            self._patched.append(node)

    def leave_With(self, original_node: cst.With) -> None:
        if self._patched and self._patched[-1] is original_node:
            self._patched.pop()

    def _scalars_captured(self) -> bool:
        """Whether `.item()` is traced (as an unbacked SymInt) in the region being visited."""
        region = self.ctx.region
        if region not in self._captures:
            fullgraph = compile_option(self.ctx, "fullgraph")
            self._captures[region] = config_enabled(self.ctx, "capture_scalar_outputs") or (
                isinstance(fullgraph, cst.Name) and fullgraph.value == "True"
                and self.ctx.target_torch >= FULLGRAPH_CAPTURES_SINCE
            )
        return self._captures[region]

    def visit_Call(self, node: cst.Call) -> None:
        if self._patched:
            return
        receiver = method_call(node, METHOD_SAYS)
        if receiver is not None:
            value = self.ctx.value(receiver)
            if value.kind in (Kind.TENSOR, Kind.MAYBE_TENSOR, Kind.UNKNOWN):
                method = node.func.attr.value  # type: ignore[attr-defined]
                if method == "item" and self._scalars_captured():
                    return
                confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
                self.report(node, confidence=confidence, says=METHOD_SAYS[method], what=f"`.{method}()`")
            return
        if not (isinstance(node.func, cst.Name) and len(node.args) == 1):
            return
        builtin = node.func.value
        if builtin in SCALAR_BUILTINS | {"range"} and self.ctx.resolve(node.func) == builtin:  # not a shadowed `int`
            value = self.ctx.value(node.args[0].value)
            if not value.tensorish:
                return
            confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
            if builtin == "range":
                self.report(node, confidence=confidence, says="GB0059", what="`range(tensor)`")
            elif not self._scalars_captured():
                self.report(node, confidence=confidence, says="GB0124", what=f"`{builtin}(tensor)`")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self._patched:
            return
        base = self.ctx.value(node.value)
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                index = self.ctx.value(element.slice.value)
                # A Python list or tuple indexed by a tensor: the index goes through .item().
                if base.kind is Kind.PYTHON and index.tensorish and not index.boolean:
                    confidence = Confidence.CERTAIN if index.is_tensor else Confidence.LIKELY
                    self.report(node, confidence=confidence, says="GB0124", what="a Python list indexed by a tensor")
                    return
            elif base.tensorish:
                bounds = [self.ctx.value(b) for b in (element.slice.lower, element.slice.upper, element.slice.step)
                          if b is not None]
                if any(b.tensorish for b in bounds):
                    certain = base.is_tensor and any(b.is_tensor for b in bounds)
                    confidence = Confidence.CERTAIN if certain else Confidence.LIKELY
                    self.report(node, confidence=confidence, says="GB0124", what="a slice with tensor bounds")
                    return
