from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import method_call, Rule

# Ops Inductor registers with `make_fallback` (torch/_inductor/lowering.py, 2.13) on every
# device, each seen as `Using FallbackKernel: aten.<op>` on CPU (testdata/rules/BL401).
# Device-dependent fallbacks (sort, topk, cumsum, median on CPU) are left out.
_FFT = ("fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn",
        "irfftn", "hfft", "ihfft")
_LINALG = ("svd", "eigh", "eig", "qr", "inv", "inv_ex", "solve", "solve_ex", "cholesky", "cholesky_ex", "det",
           "slogdet", "matrix_exp", "pinv", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "solve_triangular",
           "householder_product", "ldl_factor", "ldl_solve", "cond", "matrix_rank")
FUNCTIONS = frozenset(
    {f"torch.fft.{n}" for n in _FFT} | {f"torch.linalg.{n}" for n in _LINALG}
    | {f"torch.{n}" for n in ("inverse", "svd", "cholesky", "histc", "histogram", "nanmedian", "multinomial",
                              "cdist", "gcd", "stft", "istft")}
    | {"torch.nn.functional.embedding_bag"}
)
METHODS = frozenset({"masked_scatter", "index_reduce", "histc", "nanmedian", "multinomial", "inverse", "gcd"})


class InductorFallbackOp(Rule):
    """## What it does
    Finds ops in a compiled region that Inductor has no lowering for and runs as a
    `FallbackKernel` (the eager ATen kernel): `torch.linalg` decompositions and solvers (`svd`,
    `eigh`, `qr`, `inv`, `solve`, `cholesky`, `det`, `pinv`, `matrix_exp`, …), every
    `torch.fft` transform, `histc`/`histogram`, `nanmedian`, `multinomial`, `cdist`, `gcd`,
    `F.embedding_bag`, `masked_scatter`, `index_reduce`.

    ## Why is this bad?
    Inductor fuses the ops around a fallback into generated kernels, but not across it: the
    fallback reads its inputs from memory and writes its outputs back, and the graph is split
    into separate kernels before and after it. A model whose hot loop is mostly fallbacks gains
    little from `torch.compile`.

    ## How to fix
    Often nothing: these kernels (LAPACK, cuSOLVER, cuFFT) are already fast. Keep the cheap
    pointwise work around them together so that it still fuses, hoist fallbacks out of loops,
    and prefer formulations with lowerings (`torch.cholesky_solve` → a matmul with a cached
    factor; `cdist` → `torch.cdist`-free `x @ y.T` expansion for p=2).

    ## When it is fine
    When the op is a small part of the region's time (measure with `breaklint confirm`).

    ## Dynamo says
    Inductor's perf hint: `Using FallbackKernel: aten._linalg_svd.default` (logger
    `torch._inductor.graph`, artifact `perf_hints`).
    """

    code = "BL401"
    name = "inductor-fallback-op"
    stage = Stage.INDUCTOR
    message = "`{op}` in {region} has no Inductor lowering: it runs as an eager ATen fallback and nothing fuses across it"
    help = "keep it if it is cheap; otherwise hoist it out of the hot path or use an op Inductor lowers"
    dynamo_says = {"fallback": "Inductor perf hint `Using FallbackKernel: aten.<op>`"}
    bad = ("import torch\n\n@torch.compile\ndef f(x):\n    return torch.linalg.svd(x).S * 2\n",)
    good = ("import torch\n\n@torch.compile\ndef f(x):\n    return (x @ x.T).softmax(-1)\n",)

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func) or ""
        if resolved in FUNCTIONS:
            self.report(node, confidence=Confidence.CERTAIN, says="fallback", op=resolved)
            return
        receiver = method_call(node, METHODS)
        if receiver is not None and not resolved.startswith("torch."):
            value = self.ctx.value(receiver)
            if value.tensorish:
                confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
                self.report(node, confidence=confidence, says="fallback", op=f".{node.func.attr.value}()")  # type: ignore[attr-defined]
