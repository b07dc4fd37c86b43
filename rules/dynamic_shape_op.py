from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import dynamo_tables, FileContext, Kind, method_call
from breaklint.versions import TorchVersion

from ._nonstrict import NONSTRICT_SAYS, NonstrictCallSites
from ._support import compile_option, config_enabled

# Operators whose output shape depends on the values of their input: the ATen ops torch tags
# `dynamic_output_shape` (dynamo_tables.py, generated from torch), less the ones judged by their
# arguments below (repeat_interleave, one_hot, boolean `index`), and `unique`, the Python
# function over the tagged `_unique2`. `linalg_lstsq` is `torch.linalg.lstsq`.
CONDITIONAL = frozenset({"index", "one_hot", "repeat_interleave"})
DYNAMIC_OPS = frozenset(
    {op for op in dynamo_tables.DYNAMIC_OUTPUT_OPS if not op.startswith(("_", "linalg_")) and op not in CONDITIONAL}
    | {"unique"})
LINALG_DYNAMIC = frozenset(f"torch.linalg.{op[len('linalg_'):]}" for op in dynamo_tables.DYNAMIC_OUTPUT_OPS
                           if op.startswith("linalg_"))
# repeat_interleave's output length is the sum of a tensor of repeats, unless output_size says it.
REPEAT_INTERLEAVE = frozenset({"torch.repeat_interleave"})
ONE_HOT = frozenset({"torch.nn.functional.one_hot"})
# CTC loss lowers to aten._ctc_loss, which torch tags `dynamic_output_shape` (its alignment table
# is sized by the target lengths' values): Dynamo breaks on it like on nonzero.
CTC_LOSS = frozenset({"torch.nn.functional.ctc_loss", "torch.ctc_loss"})
# From 2.10, fullgraph=True implies capture_dynamic_output_shape_ops (dynamo-observability.md 1.3).
FULLGRAPH_CAPTURES_SINCE = TorchVersion(2, 10)
TORCH_DYNAMIC_FUNCTIONS = frozenset(f"torch.{op}" for op in DYNAMIC_OPS) | LINALG_DYNAMIC
# Traced NumPy (trace_numpy) maps these onto the same torch ops, with the same break.
NUMPY_DYNAMIC_FUNCTIONS = frozenset({"numpy.nonzero", "numpy.argwhere", "numpy.flatnonzero", "numpy.unique"})
WHERE_FUNCTIONS = frozenset({"torch.where", "numpy.where"})


class DynamicShapeOp(NonstrictCallSites):
    """## What it does
    Finds operators whose output shape depends on the data inside a compiled region:
    `nonzero`, `argwhere`, `unique`, `unique_consecutive`, `masked_select`, `bincount`,
    `repeat_interleave` with a tensor of repeats and no `output_size`, `F.one_hot` without
    `num_classes`, single-argument `torch.where(cond)`, indexing with a boolean mask
    (`x[x > 0]`, also `x[mask] += 1`; a known boolean tensor indexing a value the analysis
    cannot place, `coder.decode(deltas)[mask]`, is reported `likely`: only a tensor or an array
    takes a mask), and their NumPy spellings on arrays made from tensors
    (`np.nonzero(t.numpy())`, `np.unique`, `np.where(cond)`). Also `F.ctc_loss` and
    `torch.linalg.lstsq`, whose ATen ops torch tags `dynamic_output_shape` (the list of tagged
    ops is generated from torch: `breaklint/analysis/dynamo_tables.py`).

    ## Why is this bad?
    Dynamo traces with fake tensors that have shapes but no values, so it cannot know how many
    elements such an op returns. By default it ends the graph before the op (a graph break).

    ## How to fix
    Keep shapes static: `torch.where(mask, x, 0)` or `x * mask` instead of `x[mask]`,
    `nonzero_static(size=...)` when an upper bound is known, or set
    `torch._dynamo.config.capture_dynamic_output_shape_ops = True` (then downstream code must
    handle unbacked sizes).

    ## When it is fine
    Writing through a mask (`x[mask] = 0`) is traced without a break. Outside compiled code.
    Not reported where `capture_dynamic_output_shape_ops` is on (set at module level, or
    patched above the entry point's `@torch.compile`) or the entry point is compiled with
    `fullgraph=True` for torch 2.10 and newer; `one_hot` without `num_classes` breaks even then.

    ## Dynamo says
    `Dynamic shape operator` (GB0036); for `one_hot`: `Attempted to use
    torch.nn.functional.one_hot with data-dependent output shape` (GB0246, from 2.9).
    At the call of a `nonstrict_trace` function whose body does this: `Unsupported output type for
    nonstrict_trace-ed function` (GB0251).
    """

    code = "BL104"
    name = "dynamic-shape-op"
    stage = Stage.DYNAMO
    applies_nonstrict = True  # still breaks in a nonstrict_trace body (and at its call: GB0251)
    message = "{what} in {region} has a data-dependent output shape and forces a graph break"
    help = (
        "keep shapes static (torch.where(mask, x, 0), x * mask, nonzero_static), or set "
        "torch._dynamo.config.capture_dynamic_output_shape_ops = True"
    )
    dynamo_says = {
        "GB0036": "Dynamic shape operator",
        "GB0246": "Attempted to use `torch.nn.functional.one_hot` with data-dependent output shape",
        **NONSTRICT_SAYS,
    }
    bad = (
        "import torch\n\n@torch.compile\ndef f(x):\n    return torch.nonzero(x)\n",
        "import torch\n\n@torch.compile\ndef f(x):\n    return x[x > 0]\n",
    )
    good = (
        "import torch\n\n@torch.compile\ndef f(x):\n    return torch.where(x > 0, x, 0)\n",
        "import torch\n\n@torch.compile\ndef f(x):\n    x[x > 0] = 0\n    return x\n",
    )

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._stores: set[cst.Subscript] = set()
        self._captures: dict[object, bool] = {}

    def _shapes_captured(self) -> bool:
        """Whether data-dependent output shapes are traced (unbacked) in the region being visited."""
        region = self.ctx.region
        if region not in self._captures:
            fullgraph = compile_option(self.ctx, "fullgraph")
            self._captures[region] = config_enabled(self.ctx, "capture_dynamic_output_shape_ops") or (
                isinstance(fullgraph, cst.Name) and fullgraph.value == "True"
                and self.ctx.target_torch >= FULLGRAPH_CAPTURES_SINCE
            )
        return self._captures[region]

    def report(self, node: cst.CSTNode, *, confidence: Confidence, says=None, **fields: str) -> None:  # type: ignore[no-untyped-def]
        if says == "GB0246" or not self._shapes_captured():
            super().report(node, confidence=confidence, says=says, **fields)

    def visit_Assign(self, node: cst.Assign) -> None:
        # Writing through a mask is an index_put: traced. `x[mask] += 1` reads x[mask] first.
        self._stores.update(t.target for t in node.targets if isinstance(t.target, cst.Subscript))

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func) or ""
        if resolved in ONE_HOT:
            positional = [a for a in node.args if a.keyword is None]
            sized = any(a.keyword is not None and a.keyword.value == "num_classes" for a in node.args)
            unsized = len(positional) == 1 and not sized
            minus_one = len(positional) >= 2 and _is_minus_one(positional[1].value)
            if unsized or minus_one:
                self.report(node, confidence=Confidence.CERTAIN, says="GB0246", what="`one_hot` without `num_classes`")
            return
        if resolved in REPEAT_INTERLEAVE or (
            isinstance(node.func, cst.Attribute) and node.func.attr.value == "repeat_interleave"
            and not resolved.startswith("torch.") and self.ctx.value(node.func.value).tensorish
        ):
            args = list(node.args) if resolved in REPEAT_INTERLEAVE else [cst.Arg(node.func.value), *node.args]  # type: ignore[attr-defined]
            repeats = next((a.value for a in args if a.keyword is not None and a.keyword.value == "repeats"), None)
            positional = [a.value for a in args if a.keyword is None]
            if repeats is None and len(positional) >= 2:
                repeats = positional[1]
            sized = any(a.keyword is not None and a.keyword.value == "output_size" for a in args)
            if repeats is not None and not sized and self.ctx.value(repeats).tensorish:
                self.report(node, confidence=Confidence.CERTAIN, says="GB0036", what="`repeat_interleave` with tensor repeats")
            return
        if resolved in TORCH_DYNAMIC_FUNCTIONS or resolved in CTC_LOSS:
            self.report(node, confidence=Confidence.CERTAIN, says="GB0036", what=f"`{resolved}`")
            return
        if resolved in WHERE_FUNCTIONS and len(node.args) == 1:
            self.report(node, confidence=Confidence.CERTAIN, says="GB0036", what=f"`{resolved}(cond)`")
            return
        if resolved in NUMPY_DYNAMIC_FUNCTIONS and node.args:
            value = self.ctx.value(node.args[0].value)
            if value.tensorish:  # only arrays made from tensors are traced
                confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
                self.report(node, confidence=confidence, says="GB0036", what=f"`{resolved}`")
            return
        receiver = method_call(node, DYNAMIC_OPS)
        if receiver is not None and not resolved.startswith("torch."):
            value = self.ctx.value(receiver)
            if value.tensorish:
                confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
                method = node.func.attr.value  # type: ignore[attr-defined]
                self.report(node, confidence=confidence, says="GB0036", what=f"`.{method}()`")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if node in self._stores:
            return
        base = self.ctx.value(node.value)
        # What a bool tensor indexes is a tensor (or an array) whatever the analysis knows of it:
        # a list or a dict cannot be indexed by a mask (`coder.decode(deltas)[mask]`).
        unknown = base.kind is Kind.UNKNOWN
        if not (base.tensorish or unknown):
            return
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                index = self.ctx.value(element.slice.value)
                if index.tensorish and index.boolean and (index.is_tensor or not unknown):
                    sure = index.is_tensor and not unknown
                    self.report(node, confidence=Confidence.CERTAIN if sure else Confidence.LIKELY, says="GB0036",
                                what="boolean-mask indexing")
                    return


def _is_minus_one(expr: cst.BaseExpression) -> bool:
    return (isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus)
            and isinstance(expr.expression, cst.Integer) and expr.expression.value == "1")
