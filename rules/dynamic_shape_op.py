from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.patterns import method_call
from breaklint.rule import FileContext, Rule

# Operators whose output shape depends on the values of their input.
DYNAMIC_OPS = frozenset({"nonzero", "argwhere", "unique", "unique_consecutive", "masked_select"})
TORCH_DYNAMIC_FUNCTIONS = frozenset(f"torch.{op}" for op in DYNAMIC_OPS)
# Traced NumPy (trace_numpy) maps these onto the same torch ops, with the same break.
NUMPY_DYNAMIC_FUNCTIONS = frozenset({"numpy.nonzero", "numpy.argwhere", "numpy.flatnonzero", "numpy.unique"})
WHERE_FUNCTIONS = frozenset({"torch.where", "numpy.where"})


class DynamicShapeOp(Rule):
    """## What it does
    Finds operators whose output shape depends on the data inside a compiled region:
    `nonzero`, `argwhere`, `unique`, `unique_consecutive`, `masked_select`, single-argument
    `torch.where(cond)`, indexing with a boolean mask (`x[x > 0]`), and their NumPy spellings on
    arrays made from tensors (`np.nonzero(t.numpy())`, `np.unique`, `np.where(cond)`).

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

    ## Dynamo says
    `Dynamic shape operator` (GB0036).
    """

    code = "BL104"
    name = "dynamic-shape-op"
    stage = Stage.DYNAMO
    message = "{what} in {region} has a data-dependent output shape and forces a graph break"
    help = (
        "keep shapes static (torch.where(mask, x, 0), x * mask, nonzero_static), or set "
        "torch._dynamo.config.capture_dynamic_output_shape_ops = True"
    )
    dynamo_says = {"GB0036": "Dynamic shape operator"}
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

    def visit_Assign(self, node: cst.Assign) -> None:
        self._stores.update(t.target for t in node.targets if isinstance(t.target, cst.Subscript))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Subscript):
            self._stores.add(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func) or ""
        if resolved in TORCH_DYNAMIC_FUNCTIONS:
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
        if node in self._stores or not self.ctx.value(node.value).tensorish:
            return
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                index = self.ctx.value(element.slice.value)
                if index.tensorish and index.boolean:
                    confidence = Confidence.CERTAIN if index.is_tensor else Confidence.LIKELY
                    self.report(node, confidence=confidence, says="GB0036", what="boolean-mask indexing")
                    return
