from __future__ import annotations

from breaklint.finding import Stage

from ._recompiles import PredictedRecompile


class GuardedGlobalWrite(PredictedRecompile):
    """## What it does
    Finds a global that compiled code reads (`USE_GELU`, `CFG["scale"]`) and that other code
    reassigns between the compiled callable's calls (`global USE_GELU; USE_GELU = True`,
    `CFG["scale"] = 3`), or a closure cell it reads that a setter rebinds between the calls. The
    setter comes from the same factory and writes the cell through `nonlocal` (`apply, set_scale
    = make(); fast = torch.compile(apply); fast(x); set_scale(3); fast(x)`).

    ## Why is this bad?
    Dynamo reads a global's value while tracing, bakes it into the graph and guards on it
    (`G['USE_GELU'] == False`). The write fails that guard: the next call compiles again, once
    per distinct value for bools, ints and strings (a float is dynamic after one recompile:
    from the start under the compile's `dynamic=True`, never under `dynamic=False`).
    A closure cell is guarded the same way (`scale == 2`); measured on torch 2.13, an int or
    float cell recompiles once and is then dynamic (never with `dynamic=True`, once per value with
    `dynamic=False`), a bool or str cell once per value.
    Not a recompile on 2.13 (measured, no finding): `hasattr(obj, "flag")` turning true and an
    `os.environ` value read in the region changing between calls: the compiled code keeps the
    answer it traced.

    ## How to fix
    Keep such flags constant while compiled code runs, or pass the setting as an argument of a
    compiled callable per setting.

    ## When it is fine
    A flag set once, before the first compiled call (breaklint only reports writes between calls).

    ## Dynamo says
    `Recompiling function g ... triggered by the following guard failure(s): G['USE_GELU'] == False`
    (a closure cell: `scale == 2`).
    """

    code = "BL213"
    name = "guarded-global-write"
    stage = Stage.GUARDS
    message = "compiled `{callee}`: {cause}, so it {count}"
    help = "keep the flag constant while the compiled code runs, or pass it as an argument"
    dynamo_says = {"recompile": "`G['USE_GELU'] == False`"}
    bad = (
        "import torch\n\nUSE_GELU = False\n\n@torch.compile\ndef g(x):\n"
        "    return torch.nn.functional.gelu(x) if USE_GELU else x.relu()\n\n"
        "def enable():\n    global USE_GELU\n    USE_GELU = True\n\n"
        "def run(x):\n    g(x)\n    enable()\n    g(x)\n",
    )
    good = (
        "import torch\n\nUSE_GELU = False\n\n@torch.compile\ndef g(x):\n"
        "    return torch.nn.functional.gelu(x) if USE_GELU else x.relu()\n\n"
        "def enable():\n    global USE_GELU\n    USE_GELU = True\n\n"
        "def run(x):\n    enable()\n    g(x)\n    g(x)\n",
    )
