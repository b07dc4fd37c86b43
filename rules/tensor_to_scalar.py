from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import (FileContext, Kind, method_call, NUMPY_SIZE_FUNCTIONS, SIZE_METHODS, TORCH_SIZE_FUNCTIONS,
                            Value)
from breaklint.versions import TorchVersion, Versions, pick

from ._nonstrict import NONSTRICT_SAYS, NonstrictCallSites
from ._support import compile_option, config_enabled, config_patch_block

# What Dynamo 2.13 says for each form (read from real runs, see testdata/rules/BL101).
METHOD_SAYS = {"item": ("GB0124",), "tolist": ("GB0109", "GB0033")}  # float / integer tensors
SCALAR_BUILTINS = frozenset({"int", "float", "bool", "complex"})  # all go through .item()
# A NumPy value (traced as a tensor) read back as a Python number: Dynamo's fake tensor has no
# value for it (GB0033), or an integer one made from Python numbers has no `__index__` (GB0208).
NUMPY_SAYS = ("GB0033",)
NUMPY_CAST_SAYS = ("GB0033", "GB0208")
# A Python list indexed by a tensor, by torch version: 2.11 refuses the index itself (GB0070,
# even for a 0-d tensor), 2.13 calls .item() on it (GB0124). 2.12 not measured: either.
LIST_INDEX_SAYS = {"GB0070": Versions(high="2.12"), "GB0124": Versions(low="2.12")}
NUMPY = "a NumPy value, which Dynamo traces as a tensor"
# Advice that fits the form found (the rule's `help` is the one for a tensor read back as a number).
NUMPY_HELP = ("compute it with Python ints and math (math.lcm, sum(counts), range(n)), or build it outside "
              "forward (in __init__ or a torch.compiler.disable'd helper)")
# capture_scalar_outputs does not capture a float tensor's .tolist() (GB0109 either way).
TOLIST_HELP = ("keep the values in a tensor (index it, or torch.unbind), or move the .tolist() out of the compiled "
               "code; capture_scalar_outputs helps only an integer tensor's .tolist()")
# From 2.10, fullgraph=True implies capture_scalar_outputs (torch/__init__.py, "opts into
# unbacked semantics"; shared/reference/dynamo-observability.md 1.3).
FULLGRAPH_CAPTURES_SINCE = TorchVersion(2, 10)


class TensorToScalar(NonstrictCallSites):
    """## What it does
    Finds a tensor turned into a Python number or list inside a compiled region: `t.item()`,
    `t.tolist()`, `int(t)`, `float(t)`, `bool(t)`, and the implicit `t.__index__()` of
    `range(t)`, a Python list indexed by a tensor (`scales[i]`) and a slice with tensor bounds
    (`x[:n]`); and a tensor as the start of `x.narrow(dim, start, length)` (a count computed
    with `mask.sum(dim=1).max()`), which Dynamo has to read as a Python int.

    The same for NumPy values: in a region Dynamo traces NumPy as tensors (torch._numpy), also
    NumPy called on plain Python values (`np.sum(counts)`, `np.arange(n)`, an element of
    `np.array(lengths)`), so `int(a)`, `a.item()`, `range(a[0])`, `lengths[i]` with a NumPy `i`,
    `math.sqrt(a)`, and an array-valued size (`np.zeros((n, np.sum(counts)))`,
    `torch.zeros(a)`, `x.reshape(-1, a)`) break as they do on a tensor.

    ## Why is this bad?
    The value only exists once the kernels have run, so Dynamo cannot put it in the graph: it ends
    the graph there, runs the Python code eagerly, and starts a new graph after it (a graph
    break). Each break costs a device sync, a trip through Python and the fusion across it.

    ## How to fix
    Keep the value a tensor (`torch.where`, masking, `clamp`) and only call `.item()` outside the
    compiled function, for logging. If the scalar must be used, set
    `torch._dynamo.config.capture_scalar_outputs = True` so that Dynamo traces it as a symbolic
    integer (or use `fullgraph=True`, which implies it from torch 2.10).

    For a plan computed with NumPy from Python values (block layouts, chunk lengths), compute it
    with Python ints and `math` (`math.lcm`, `sum(counts)`, `range(n)`), build it once outside
    `forward` (in `__init__`, or in a `torch.compiler.disable`d helper), or keep it in torch ops.

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
    NumPy on numbers that Dynamo can fold: `float(np.sqrt(d))`, `int(np.ceil(n / k))`, a size
    `np.lcm(a, b)` (an element-wise function of Python numbers: its value is known while
    tracing); constants such as `np.pi`, `np.float32`, `np.finfo(np.float32).min`.

    ## Dynamo says
    `Unsupported Tensor.item() call with capture_scalar_outputs=False` (GB0124) for `.item()`,
    `int()`, `float()`, `bool()`, list indexing and tensor slice bounds; `Tensor.tolist() with
    non-integer tensor` (GB0109) or `Data dependent operator` (GB0033, integer tensors) for
    `.tolist()`; `Failed to trace builtin operator` (GB0059) for `range(tensor)`; `Data dependent
    operator` (GB0033) for a tensor start of `narrow()`.
    For NumPy values: `Data dependent operator` (GB0033); `torch.* op returned non-Tensor`
    (GB0208) for an integer made from Python numbers used as an index or slice bound.
    At the call of a `nonstrict_trace` function whose body does this: `Unsupported output type for
    nonstrict_trace-ed function` (GB0251).

    ## Versions
    A Python list indexed by a tensor breaks in every version; torch 2.11 refuses the index
    itself, `Indexing list with non-scalar tensor` (GB0070, even for a 0-d tensor), where 2.13
    says GB0124. For 2.12, not measured, the finding quotes both.
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
        "GB0208": "torch.* op returned non-Tensor",
        "GB0070": "Indexing list with non-scalar tensor",
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
        self._narrow_start(node)
        receiver = method_call(node, METHOD_SAYS)
        if receiver is not None:
            value = self.ctx.value(receiver)
            method = node.func.attr.value  # type: ignore[attr-defined]
            if value.numpy:
                if not value.from_scalars:  # a value Dynamo knows while tracing is folded
                    self.report(node, confidence=_confidence(value), says=NUMPY_SAYS, what=f"`.{method}()` of {NUMPY},",
                                help=NUMPY_HELP)
            elif value.kind in (Kind.TENSOR, Kind.MAYBE_TENSOR, Kind.UNKNOWN):
                if method == "item" and self._scalars_captured():
                    return
                self.report(node, confidence=_confidence(value), says=METHOD_SAYS[method], what=f"`.{method}()`",
                            help=TOLIST_HELP if method == "tolist" else None)
            return
        if not isinstance(node.func, cst.Name) or node.func.value not in SCALAR_BUILTINS | {"range"}:
            self._numpy_sizes(node)
            return
        builtin = node.func.value
        if self.ctx.resolve(node.func) != builtin:  # a shadowed `int`
            return
        if builtin == "range" and node.args:
            values = [self.ctx.value(a.value) for a in node.args]
            value = next((v for v in values if v.is_tensor), next((v for v in values if v.tensorish), None))
            if value is not None:
                what = f"`range()` over {NUMPY}," if value.numpy else "`range(tensor)`"
                self.report(node, confidence=_confidence(value), says="GB0059", what=what,
                            help=NUMPY_HELP if value.numpy else None)
        elif builtin in SCALAR_BUILTINS and len(node.args) == 1:
            value = self.ctx.value(node.args[0].value)
            if not value.tensorish:
                return
            if value.numpy:
                if not value.from_scalars:
                    self.report(node, confidence=_confidence(value), says=NUMPY_CAST_SAYS, what=f"`{builtin}()` of {NUMPY},",
                                help=NUMPY_HELP)
            elif not self._scalars_captured():
                self.report(node, confidence=_confidence(value), says="GB0124", what=f"`{builtin}(tensor)`")

    def _narrow_start(self, node: cst.Call) -> None:
        """`x.narrow(dim, start, length)` / `torch.narrow(x, dim, start, length)` with a tensor
        start: Dynamo reads it as a Python int (GB0033). A tensor length is not reported: it is
        only read when the tensor is made in the same graph (a count that crossed a break into a
        graph's inputs is traced, Longformer's `narrow(-1, 0, max_num_global_attn_indices)`)."""
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "narrow" and not (
                self.ctx.resolve(func) or "").startswith("torch."):
            receiver, position = self.ctx.value(func.value), 1
        elif self.ctx.resolve(func) == "torch.narrow":
            first = next((a for a in node.args if a.keyword is None and not a.star), None)
            receiver, position = (self.ctx.value(first.value) if first else Value(Kind.UNKNOWN)), 2
        else:
            return
        if not receiver.tensorish or self._scalars_captured():
            return
        positional = [a for a in node.args if a.keyword is None and not a.star]
        start = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "start"),
                     positional[position].value if len(positional) > position else None)
        value = self.ctx.value(start) if start is not None else Value(Kind.UNKNOWN)
        if value.tensorish and not value.numpy and not value.boolean:
            certain = receiver.is_tensor and value.is_tensor
            self.report(node, confidence=Confidence.CERTAIN if certain else Confidence.LIKELY, says="GB0033",
                        what="a tensor as the start of `narrow()`")

    def _numpy_sizes(self, node: cst.Call) -> None:
        """An array-valued NumPy value passed as a size (`np.zeros((n, a))`, `x.reshape(-1, a)`)
        or to `math`: it has to become a Python int first (GB0033)."""
        resolved = self.ctx.resolve(node.func) or ""
        sized = resolved in NUMPY_SIZE_FUNCTIONS or resolved in TORCH_SIZE_FUNCTIONS or resolved.startswith("math.")
        if not sized and isinstance(node.func, cst.Attribute) and node.func.attr.value in SIZE_METHODS:
            sized = not resolved.startswith(("torch.", "numpy.")) and self.ctx.value(node.func.value).tensorish
        if not sized:
            return
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value not in ("shape", "size", "start", "stop", "end", "step"):
                continue
            parts = [e.value for e in arg.value.elements] if isinstance(arg.value, (cst.Tuple, cst.List)) else [arg.value]
            for part in parts:
                value = self.ctx.value(part)
                if value.numpy and not value.from_scalars:
                    use = f"passed to `{resolved}`" if resolved.startswith("math.") else "used as a size"
                    self.report(node, confidence=_confidence(value), says=NUMPY_SAYS, what=f"{NUMPY}, {use},",
                                help=NUMPY_HELP)
                    return

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self._patched:
            return
        base = self.ctx.value(node.value)
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                index = self.ctx.value(element.slice.value)
                # A Python list or tuple indexed by a tensor: the index goes through .item().
                if base.kind is Kind.PYTHON and index.tensorish and not index.boolean:
                    if index.numpy:
                        self.report(node, confidence=_confidence(index), says=_index_says(index),
                                    what=f"a Python list indexed by {NUMPY},", help=NUMPY_HELP)
                    else:
                        self.report(node, confidence=_confidence(index),
                                    says=pick(LIST_INDEX_SAYS, self.ctx.target_torch),
                                    what="a Python list indexed by a tensor")
                    return
            elif base.tensorish:
                bounds = [self.ctx.value(b) for b in (element.slice.lower, element.slice.upper, element.slice.step)
                          if b is not None]
                if any(b.tensorish for b in bounds):
                    certain = base.is_tensor and any(b.is_tensor for b in bounds)
                    confidence = Confidence.CERTAIN if certain else Confidence.LIKELY
                    bound = next(b for b in bounds if b.tensorish)
                    if bound.numpy:
                        self.report(node, confidence=confidence, says=_index_says(bound), what=f"a slice bounded by {NUMPY},",
                                    help=NUMPY_HELP)
                    else:
                        self.report(node, confidence=confidence, says="GB0124", what="a slice with tensor bounds")
                    return


def _confidence(value: Value) -> Confidence:
    return Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY


def _index_says(value: Value) -> tuple[str, ...]:
    return ("GB0208",) if value.from_scalars else ("GB0033",)
