from __future__ import annotations

from breaklint.finding import Stage

from ._recompiles import PredictedRecompile


class VaryingCallArgument(PredictedRecompile):
    """## What it does
    Finds the calls of a compiled callable (`opt = torch.compile(f)`, `@torch.compile def f`,
    `model = torch.compile(net)`) that pass different Python values in one parameter: constants
    that differ between calls (`f(x, 2)` then `f(x, 3)`, `mode="sum"` then `mode="mean"`), a
    loop variable (`for flag in (True, False): f(x, flag)`), None at one call and a tensor at
    another, a tensor cast to another dtype (`f(x)` then `f(x.half())`), tuples of sizes; a
    tensor passed as itself and as a transposed or strided view (`f(x)` then `f(x.t())`,
    `f(x[:, ::2])`); dicts with other keys (`f({"a": x})` then `f({"a": x, "b": y})`); a list
    or dict passed in and changed between calls (`xs.append(t)`, `batch["mask"] = m`); a Python
    number read from a tensor's data (`n = int(mask.sum()); f(x, n)`, `f(x, loss.item())`) in a
    loop or at two call sites. Calls in other files count: `from .ops import fast_fn` then
    `fast_fn(x, 2)`, `fast_fn(x, 3)` is reported where the calls are.

    ## Why is this bad?
    Dynamo guards on what it specialised: a `bool`, a `str` and None-ness are constants of the
    graph, so each new value fails a guard and compiles the function again (after
    `recompile_limit` (8) values it runs eagerly). An `int` or a `float` compiles once more and
    is then dynamic (torch 2.13, automatic dynamic shapes); with `dynamic=True` it is dynamic from
    the first call (no finding), with `dynamic=False` each new value compiles again (the count
    says how often). An int then a float compiles a graph for each type (1, 2, 0.5: twice). A new
    dtype compiles once per dtype.
    Strides are guarded too (one compile per distinct layout), a list's length and a dict's
    length and keys (one compile per distinct structure: lists and dicts never turn dynamic).

    ## How to fix
    Keep the value constant, compile one callable per mode, or pass a tensor instead of a Python
    scalar; for the one recompile of an int or float, `torch.compile(dynamic=True)` avoids it.

    ## When it is fine
    A flag with two values costs two compiles, once: often acceptable. The message says how many.

    ## Dynamo says
    `Recompiling function f in file.py:5 triggered by the following guard failure(s): - 0/0:
    flag == True` (or `n == 2`, `mode == 'sum'`, `b is None`, `tensor 'x' dtype mismatch`,
    `tensor 'w' stride mismatch at index 0`, `len(states) == 1`, `len(batch) != 1`).
    """

    code = "BL211"
    name = "varying-call-argument"
    stage = Stage.GUARDS
    message = "compiled `{callee}`: {cause}, so it {count}"
    help = "keep the value constant, compile one callable per value, or pass a tensor"
    dynamo_says = {"recompile": "`flag == True` (a guard on a specialised argument)"}
    bad = (
        "import torch\n\n@torch.compile\ndef f(x, flag: bool):\n    return x * 2 if flag else x\n\n"
        "def run(x):\n    f(x, True)\n    f(x, False)\n",
    )
    good = (
        "import torch\n\n@torch.compile\ndef f(x, flag: bool):\n    return x * 2 if flag else x\n\n"
        "def run(x):\n    f(x, True)\n    f(x, True)\n",
    )
