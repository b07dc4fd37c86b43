from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule
from breaklint.versions import TorchVersion, Versions

from ._cold_paths import diagnostic_branch, report_possible
from .python_side_effect import PythonSideEffect

# Read from real runs on torch 2.13 (testdata/rules/BL109). `id()`, `locals()`, `eval()`,
# `inspect.signature()` and `getattr(x, name)` do not break (`id()` of a tensor recompiles
# instead: BL203). An f-string of a tensor's value breaks where the string is used (GB0088,
# measured for #17), not where it is built: not reported yet.
BUILTINS = {"globals": "GB0059", "exec": "GB0059", "locals": "GB0059"}
# Builtins that break only in some torch versions: `locals()` broke on 2.11 (GB0059) and is
# traced on 2.13 (pytorch#178819, opened 2026-03-30, after the 2.11 branch cut; 2.12 not measured).
BREAKS_IN = {"locals": Versions(high="2.11")}
FRAME_CALLS = {"inspect.stack": "GB0007", "inspect.currentframe": "GB0007", "sys._getframe": "GB0007",
               "sys.getsizeof": "GB0007", "inspect.getouterframes": "GB0007"}
TENSOR_TEXT = {"str": "GB0059", "repr": "GB0569"}
# `class` statements call the `__build_class__` builtin; its Gb_type changed in 2.13.
BUILD_CLASS_SINCE = TorchVersion(2, 13)


class UnsupportedBuiltin(Rule):
    """## What it does
    Finds Python introspection that Dynamo cannot trace in a compiled region: `globals()`,
    `exec(...)`, `locals()` (torch 2.11 and older), `str(tensor)`/`repr(tensor)`,
    `inspect.stack()`/`inspect.currentframe()`, `sys._getframe()`, `sys.getsizeof()`, and a
    `class` statement inside the region.

    ## Why is this bad?
    Dynamo models a fixed set of builtins. These ones need the real interpreter state (frames,
    the globals dict, a tensor's values for its text), so Dynamo ends the graph and runs them
    eagerly. `str(t)` and `repr(t)` also read the data back from the device.

    ## How to fix
    Move introspection out of the compiled function (compute it once, at import or
    construction). Format shapes, not tensors: `f"{x.shape}"` is traced. Define classes at
    module level.

    ## When it is fine
    Debug-only code outside the region. Frame inspection on an error path (a branch under a
    test of Python values that ends in `raise`, e.g. to name the caller in the message) breaks
    only when the error is raised: it is reported as a `possible` break with severity `info`.

    ## Dynamo says
    `Failed to trace builtin operator` (GB0059) for `globals`, `exec`, `locals` (2.11) and
    `str(tensor)`; `repr() on tensor` (GB0569, 2.13); `Attempted to call function marked as
    skipped` (GB0007) for `inspect`/`sys` frame functions; `Invalid call to __build_class__` (GB8977, 2.13;
    `LOAD_BUILD_CLASS bytecode not supported`, GB0075, before) for a class statement.

    ## Versions
    `locals()` breaks on torch 2.11 (GB0059) and is traced on 2.13, so it is reported for a
    `target-torch` of 2.11 or older. The pull request that traces it (pytorch#178819, "Trace
    locals()/vars() as ConstDictVariable snapshot") dates from March 2026, after the 2.11
    branch cut; 2.12 was not measured, and is judged like 2.13.
    """

    code = "BL109"
    name = "unsupported-builtin"
    stage = Stage.DYNAMO
    message = "{what} in {region} needs the real interpreter and forces a graph break"
    help = "move the introspection out of the compiled code; format shapes (f'{x.shape}') rather than tensors"
    dynamo_says = {
        "GB0059": "Failed to trace builtin operator",
        "GB0569": "repr() on tensor",
        "GB0007": "Attempted to call function marked as skipped",
        "GB8977": "Invalid call to __build_class__",
        "GB0075": "LOAD_BUILD_CLASS bytecode not supported",
    }
    bad = (
        "import torch\n\n@torch.compile\ndef f(x):\n    names = globals()\n    return x * 2\n",
        "import torch\n\n@torch.compile\ndef f(x):\n    text = str(x)\n    return x * len(text)\n",
    )
    good = ("import torch\n\n@torch.compile\ndef f(x):\n    text = f'{x.shape}'\n    return x * len(text)\n",)

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func) or ""
        if isinstance(node.func, cst.Name) and resolved in BUILTINS:
            if self.ctx.target_torch not in BREAKS_IN.get(resolved, Versions()):
                return
            self.report(node, confidence=Confidence.CERTAIN, says=BUILTINS[resolved], what=f"`{resolved}()`")
        elif resolved in FRAME_CALLS:
            test = diagnostic_branch(self.ctx, node, self._writes_output)
            if test is not None:
                report_possible(self, node, test, FRAME_CALLS[resolved], what=f"`{resolved}()`")
            else:
                self.report(node, confidence=Confidence.CERTAIN, says=FRAME_CALLS[resolved], what=f"`{resolved}()`")
        elif isinstance(node.func, cst.Name) and resolved in TENSOR_TEXT and len(node.args) == 1:
            value = self.ctx.value(node.args[0].value)
            if value.tensorish:
                confidence = Confidence.CERTAIN if value.is_tensor else Confidence.LIKELY
                self.report(node, confidence=confidence, says=TENSOR_TEXT[resolved], what=f"`{resolved}(tensor)`")

    def _writes_output(self, call: cst.Call) -> bool:
        return PythonSideEffect(self.ctx)._side_effect(call) is not None

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        says = "GB8977" if self.ctx.target_torch >= BUILD_CLASS_SINCE else "GB0075"
        self.report(node, confidence=Confidence.CERTAIN, says=says, what=f"`class {node.name.value}` statement")
