"""BL123 prebuilt-context-manager: `with NAME:` on a context-manager object built outside the frame."""

from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule

UNSUPPORTED_CONTEXT = "GB0142"
ENTER = "__enter__"


class PrebuiltContextManager(Rule):
    """## What it does
    Finds a `with` in a compiled region on an instance of one of the file's own context-manager
    classes that was built outside the function: a module-level `TIMER = StepTimer()` used as
    `with TIMER:`.

    ## Why is this bad?
    Dynamo models a context manager it sees being created in the frame it traces (`with
    StepTimer():`, `@contextlib.contextmanager` functions, torch's own), replaying its
    `__enter__`/`__exit__`. An object that already existed when tracing started is opaque state to
    it (torch 2.13): it gives up at the `with`, skips the frame, and the function runs eagerly.

    ## How to fix
    Create the context manager in the compiled function (`with StepTimer():`), or enter it
    around the call of the compiled function instead of inside it.

    ## When it is fine
    Outside compiled code. Locks are BL107's.

    ## Dynamo says
    `Unsupported context manager` (GB0142).
    """

    code = "BL123"
    name = "prebuilt-context-manager"
    stage = Stage.DYNAMO
    message = "`with {name}:` in {region} enters a `{cls}` built outside the traced function: Dynamo gives up on the context manager and skips the frame"
    help = "create the context manager inside the compiled function (with StepTimer():), or enter it around the call"
    dynamo_says = {UNSUPPORTED_CONTEXT: "Unsupported context manager"}
    bad = ("import torch\n\nclass Scope:\n    def __enter__(self):\n        return self\n\n    def __exit__(self, *exc):\n"
           "        return False\n\nSCOPE = Scope()\n\n@torch.compile\ndef f(x):\n    with SCOPE:\n        return x * 2\n",)
    good = ("import torch\n\nclass Scope:\n    def __enter__(self):\n        return self\n\n    def __exit__(self, *exc):\n"
            "        return False\n\n@torch.compile\ndef f(x):\n    with Scope():\n        return x * 2\n",)

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            found = self._prebuilt(item.item)
            if found is not None:
                self.report(item, confidence=Confidence.CERTAIN, says=UNSUPPORTED_CONTEXT,
                            name=item.item.value, cls=found)  # type: ignore[attr-defined]
                return

    def _prebuilt(self, expr: cst.BaseExpression) -> str | None:
        """The class of a module-level name bound once to `Cls()` of this file, when the class
        (or a base of this file) defines `__enter__`."""
        fn = self.ctx.function
        if not isinstance(expr, cst.Name) or fn is None or fn.binds_locally(expr.value):
            return None
        bound = self.ctx.module.assigns.get(expr.value, [])
        call = bound[0].expr if len(bound) == 1 else None
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
            return None
        classes = self.ctx.module.classes
        cls = classes.get(call.func.value)
        for _ in range(8):  # up the file's own bases
            if cls is None:
                return None
            if ENTER in cls.methods:
                return call.func.value
            base = next((b for b in cls.bases if isinstance(b, cst.Name) and b.value in classes), None)
            cls = classes.get(base.value) if base is not None else None
        return None
