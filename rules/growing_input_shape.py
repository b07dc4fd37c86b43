from __future__ import annotations

from breaklint.finding import Stage

from ._recompiles import PredictedRecompile


class GrowingInputShape(PredictedRecompile):
    """## What it does
    Finds a compiled callable called in a loop with a tensor whose size follows the loop
    variable (`model(ids[:, :t])`, `f(torch.randn(1, n))`): a growing sequence length without
    `torch._dynamo.mark_dynamic`.

    ## Why is this bad?
    The first call compiles for the first size; the second size fails a size guard and Dynamo
    compiles again with that dimension symbolic (automatic dynamic shapes). With
    `dynamic=False` every size would compile (see BL210): here it is one extra compile, reported
    as information. Sizes 0 and 1 are always specialised (torch 2.13): a loop whose sizes start
    at 0 compiles twice more, and even under `dynamic=True` one starting at 1 compiles once more,
    at 0 twice (from 2: never; then no finding).

    ## How to fix
    Call `torch._dynamo.mark_dynamic(x, dim)` on the first input (or compile with
    `dynamic=True`) to compile the dynamic graph at once; pad to a few fixed sizes when static
    shapes are worth it.

    ## When it is fine
    Usually: one extra compile.

    ## Dynamo says
    `Recompiling function f ... triggered by the following guard failure(s): tensor 'x' size
    mismatch at index 1. expected 8, actual 9`.
    """

    code = "BL214"
    name = "growing-input-shape"
    stage = Stage.GUARDS
    message = "compiled `{callee}`: {cause}, so it {count}"
    help = "torch._dynamo.mark_dynamic(x, dim) on the first input, or pad to fixed sizes"
    dynamo_says = {"recompile": "`tensor 'x' size mismatch at index 1. expected 8, actual 9`"}
    bad = (
        "import torch\n\n@torch.compile\ndef f(x):\n    return x * 2\n\n"
        "def run(ids):\n    for t in range(8, 16):\n        f(ids[:, :t])\n",
    )
    good = (
        "import torch\n\n@torch.compile\ndef f(x):\n    return x * 2\n\n"
        "def run(ids):\n    for t in range(8, 16):\n        f(ids)\n",
    )
