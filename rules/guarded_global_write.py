from __future__ import annotations

from breaklint.finding import Stage

from ._recompiles import PredictedRecompile


class GuardedGlobalWrite(PredictedRecompile):
    """## What it does
    Finds a global that compiled code reads (`USE_GELU`, `CFG["scale"]`) and that other code
    reassigns between the compiled callable's calls (`global USE_GELU; USE_GELU = True`,
    `CFG["scale"] = 3`).

    ## Why is this bad?
    Dynamo reads a global's value while tracing, bakes it into the graph and guards on it
    (`G['USE_GELU'] == False`). The write fails that guard: the next call compiles again, once
    per distinct value for bools, ints and strings (a float is dynamic after one recompile).

    ## How to fix
    Keep such flags constant while compiled code runs, or pass the setting as an argument of a
    compiled callable per setting.

    ## When it is fine
    A flag set once, before the first compiled call (breaklint only reports writes between calls).

    ## Dynamo says
    `Recompiling function g ... triggered by the following guard failure(s): G['USE_GELU'] == False`.
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
