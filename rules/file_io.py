from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule

from ._support import called_name

# Read from real runs on torch 2.13 (testdata/rules/BL108). `np.save`/`np.load` are BL103.
SKIPPED = "GB0007"
CALLS = {
    "open": "GB0059",  # a builtin Dynamo has no handler for; `with open(...)` skips the frame (GB0142)
    "io.open": "GB0059",
    "torch.save": SKIPPED, "torch.load": SKIPPED,
    **{f"pickle.{n}": SKIPPED for n in ("dump", "dumps", "load", "loads")},
    **{f"json.{n}": "GB0156" for n in ("dump", "dumps", "load", "loads")},
    "io.StringIO": "GB0156", "io.BytesIO": "GB0156",
    **{f"os.{n}": SKIPPED for n in ("listdir", "stat", "scandir", "mkdir", "remove")},
    **{f"os.path.{n}": SKIPPED for n in ("exists", "isfile")},
    "socket.gethostname": SKIPPED, "socket.socket": "GB0147",
}
PATH_CLASSES = frozenset({"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath"})
# pathlib.Path methods; the bytes ones reach the `open` builtin first.
PATH_METHODS = {
    **{n: SKIPPED for n in ("read_text", "write_text", "exists", "is_file", "is_dir", "open", "mkdir",
                            "iterdir", "glob", "stat")},
    "read_bytes": "GB0059", "write_bytes": "GB0059",
}


class FileIo(Rule):
    """## What it does
    Finds file and network I/O in a compiled region: `open(...)`, `torch.save`/`torch.load`,
    `pickle` and `json` (de)serialisation, `io.StringIO`/`io.BytesIO`, `pathlib.Path(...)`
    reads and checks, `os.listdir`/`os.stat`/`os.path.exists`, `socket` calls.

    ## Why is this bad?
    I/O is a side effect outside the tensor world: Dynamo ends the graph before the call and
    runs it eagerly (a graph break, with a device sync when tensors are written). Under
    `with open(...)` Dynamo cannot even resume: it gives up on the whole function. I/O also
    stalls the GPU pipeline that compilation is meant to keep full.

    ## How to fix
    Do I/O outside the compiled function: return the tensors and save them in the training
    loop, load data before the call. For checkpoints, wrap the saving helper in
    `@torch.compiler.disable` so that only it runs eagerly.

    ## When it is fine
    Outside compiled code; a debug dump that is off in production.

    ## Dynamo says
    `Failed to trace builtin operator` (GB0059) for `open`; `Attempted to call function marked
    as skipped` (GB0007) for `torch.save`/`torch.load`, `pickle`, `os`, `pathlib`, `socket`;
    `Unsupported method call` (GB0156) for `json` and `io` buffers; `Unsupported function call`
    (GB0147) for `socket.socket()`.
    """

    code = "BL108"
    name = "file-io"
    stage = Stage.DYNAMO
    message = "`{function}` in {region} does file or network I/O, which Dynamo cannot trace: it forces a graph break"
    help = "do the I/O outside the compiled code (return the tensors, save them in the loop) or in a @torch.compiler.disable helper"
    dynamo_says = {
        "GB0059": "Failed to trace builtin operator",
        "GB0007": "Attempted to call function marked as skipped",
        "GB0156": "Unsupported method call",
        "GB0147": "Unsupported function call",
    }
    bad = (
        "import torch\n\n@torch.compile\ndef f(x):\n    torch.save(x, 'x.pt')\n    return x * 2\n",
        "import json\nimport torch\n\n@torch.compile\ndef f(x):\n    meta = json.loads('{}')\n    return x * 2\n",
    )
    good = ("import torch\n\n@torch.compile\ndef f(x):\n    return x * 2\n\ndef step(x):\n    y = f(x)\n"
            "    torch.save(y, 'y.pt')  # not compiled\n    return y\n",)

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func) or ""
        if resolved in CALLS and (resolved != "open" or isinstance(node.func, cst.Name)):
            self.report(node, confidence=Confidence.CERTAIN, says=CALLS[resolved], function=f"{resolved}()")
            return
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in PATH_METHODS:
            if called_name(func.value, self.ctx.module) in PATH_CLASSES:
                self.report(node, confidence=Confidence.CERTAIN, says=PATH_METHODS[func.attr.value],
                            function=f"pathlib.Path.{func.attr.value}()")
