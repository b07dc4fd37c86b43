from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import method_call, Rule

TO_SPARSE = frozenset({"to_sparse", "to_sparse_coo", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr",
                       "to_sparse_bsc"})
CONSTRUCTORS = frozenset(f"torch.{n}" for n in ("sparse_coo_tensor", "sparse_csr_tensor", "sparse_csc_tensor",
                                                "sparse_bsr_tensor", "sparse_bsc_tensor", "sparse_compressed_tensor"))


class SparseTensor(Rule):
    """## What it does
    Finds sparse tensors made inside a compiled region: `t.to_sparse()` (and the CSR/CSC/BSR
    forms) and `torch.sparse_coo_tensor(...)` & co.

    ## Why is this bad?
    `torch.compile` does not support sparse tensors: Dynamo cannot wrap one, so it breaks the
    graph where the sparse tensor is made, and where it cannot resume it gives up on the whole
    function. Inductor has no sparse kernels either (`to_sparse` is a fallback).

    ## How to fix
    Keep the sparse work outside the compiled function, or use a dense formulation (masking,
    `index_select`/`scatter_add`, `torch.sparse.mm` outside the region).

    ## When it is fine
    Outside compiled code.

    ## Dynamo says
    `Attempted to wrap sparse Tensor with VariableTracker` (GB0277, from 2.10) and `Attempted to
    wrap sparse Tensor` (GB0015) for `to_sparse()`; `Attempted to call function marked as
    skipped` (GB0007) for the constructors.
    """

    code = "BL115"
    name = "sparse-tensor"
    stage = Stage.DYNAMO
    message = "{what} in {region} makes a sparse tensor, which torch.compile does not support: it forces a graph break"
    help = "keep sparse work outside the compiled code, or use a dense formulation (masking, index_select, scatter_add)"
    dynamo_says = {
        "GB0277": "Attempted to wrap sparse Tensor with VariableTracker",
        "GB0015": "Attempted to wrap sparse Tensor",
        "GB0007": "Attempted to call function marked as skipped",
    }
    bad = ("import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    return x.to_sparse()\n",)
    good = ("import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    return x * (x > 0)\n",)

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func) or ""
        if resolved in CONSTRUCTORS:
            self.report(node, confidence=Confidence.CERTAIN, says="GB0007", what=f"`{resolved}(...)`")
            return
        receiver = method_call(node, TO_SPARSE)
        if receiver is not None and not resolved.startswith("torch."):
            value = self.ctx.value(receiver)
            if value.tensorish:
                confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
                method = node.func.attr.value  # type: ignore[attr-defined]
                self.report(node, confidence=confidence, says=("GB0277", "GB0015"), what=f"`.{method}()`")
