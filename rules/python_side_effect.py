from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule

from ._cold_paths import diagnostic_branch, report_possible
from ._support import bindings, called_name

# What Dynamo 2.13 says for each (read from real runs, see testdata/rules/BL106).
LOGGING_FUNCTIONS = frozenset(
    f"logging.{name}" for name in ("debug", "info", "warning", "warn", "error", "exception", "critical", "log")
)
LOGGER_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "isEnabledFor",
     # transformers (and diffusers) add these to `logging.Logger` (transformers.utils.logging).
     "warning_once", "info_once", "warning_advice"}
)
# Functions that hand out a `logging.Logger` (diffusers/transformers' `logging.get_logger` too).
LOGGER_FACTORIES = ("getLogger", "get_logger")
WARNINGS = frozenset({"warnings.warn", "warnings.warn_explicit"})
STREAMS = frozenset({"sys.stdout.write", "sys.stderr.write", "sys.stdout.flush", "sys.stderr.flush"})


class PythonSideEffect(Rule):
    """## What it does
    Finds output written from a compiled region: `print(...)`, `logging.info(...)`, calls on a
    `logging.Logger` (`logger.warning(...)`, `logger.isEnabledFor(...)`, and the
    `warning_once`/`info_once`/`warning_advice` that transformers adds to every logger),
    `warnings.warn(...)` and `sys.stdout.write(...)`.

    ## Why is this bad?
    A graph holds tensor operations only; Dynamo cannot put a side effect on the Python world in
    it, so it ends the graph before the call, runs it eagerly and starts a new graph after it.
    The call runs on every step, and so does the break. Inside a loop, Dynamo gives up on the
    whole function.

    ## How to fix
    Log outside the compiled function, or only while not compiling:
    `if not torch.compiler.is_compiling(): logger.info(...)`. Dynamo can also move `print`
    after the graph (`torch._dynamo.config.reorderable_logging_functions.add(print)`) or drop
    logger calls while tracing (`torch._dynamo.config.ignore_logger_methods`, from 2.6).

    ## When it is fine
    A debugging path that is off in production; code outside the compiled region. A call in a
    branch that only warns, logs or raises, under a test of Python values (a deprecated
    argument was passed, `verbose=True`, bad input) breaks only in the calls that take the
    branch: it is reported as a `possible` break with severity `info`, not as a likely one.

    ## Dynamo says
    `Failed to trace builtin operator` (GB0059) for `print`; `logging.Logger method not supported
    for non-export cases` (GB0291) for logger methods; `Unsupported python_type() call` (GB4841,
    2.13) for the module-level `logging.info(...)`; `Attempted to call function marked as skipped`
    (GB0007) for `warnings.warn`; `Unsupported method call` (GB0156) for `sys.stdout.write`.
    """

    code = "BL106"
    name = "python-side-effect"
    stage = Stage.DYNAMO
    message = "{what} in {region} is a Python side effect Dynamo cannot trace and forces a graph break"
    help = (
        "log outside the compiled code or under `if not torch.compiler.is_compiling():`; for print, "
        "torch._dynamo.config.reorderable_logging_functions.add(print)"
    )
    dynamo_says = {
        "GB0059": "Failed to trace builtin operator",
        "GB0291": "logging.Logger method not supported for non-export cases",
        "GB4841": "Unsupported python_type() call",
        "GB0007": "Attempted to call function marked as skipped",
        "GB0156": "Unsupported method call",
    }
    bad = (
        "import torch\n\n@torch.compile\ndef f(x):\n    print('step')\n    return x * 2\n",
        "import logging\nimport torch\n\nlogger = logging.getLogger(__name__)\n\n@torch.compile\ndef f(x):\n"
        "    logger.info('step')\n    return x * 2\n",
    )
    good = (
        "import torch\n\n@torch.compile\ndef f(x):\n    if not torch.compiler.is_compiling():\n"
        "        print('step')\n    return x * 2\n",
        "import logging\nimport torch\n\nlogger = logging.getLogger(__name__)\n\ndef f(x):\n"
        "    logger.info('step')  # not compiled\n    return x * 2\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = self._side_effect(node)
        if found is None:
            return
        says, what = found
        test = diagnostic_branch(self.ctx, node, lambda call: self._side_effect(call) is not None)
        if test is not None:
            report_possible(self, node, test, says, what=what)
        else:
            self.report(node, confidence=Confidence.CERTAIN, says=says, what=what)

    def _side_effect(self, node: cst.Call) -> tuple[str, str] | None:
        """(GB id, what) when the call writes output Dynamo cannot trace."""
        resolved = self.ctx.resolve(node.func) or ""
        if resolved == "print" and isinstance(node.func, cst.Name):
            return "GB0059", "`print()`"
        if resolved in LOGGING_FUNCTIONS:
            return "GB4841", f"`{resolved}()`"
        if resolved in WARNINGS:
            return "GB0007", f"`{resolved}()`"
        if resolved in STREAMS:
            return "GB0156", f"`{resolved}()`"
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in LOGGER_METHODS:
            if self._is_logger(node.func.value):
                return "GB0291", f"logger `.{node.func.attr.value}()`"
        return None

    def _is_logger(self, receiver: cst.BaseExpression) -> bool:
        """`logging.getLogger(...)`, or a name / `self.attr` bound only to one."""
        if isinstance(receiver, cst.Call):
            return _is_factory(called_name(receiver, self.ctx.module))
        bound = list(bindings(self.ctx, receiver))
        return bool(bound) and all(_is_factory(called_name(expr, module)) for expr, module in bound)


def _is_factory(name: str | None) -> bool:
    return name is not None and name.rpartition(".")[2] in LOGGER_FACTORIES
