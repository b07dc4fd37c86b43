"""BL602 untraceable-collective: a `torch.distributed` collective Dynamo cannot trace, in a region."""

from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule

# Measured on torch 2.13 (CPU, gloo; benchmarks/distributed/probe.py, docs/distributed.md): the
# c10d calls Dynamo has no rewrite for are skipped functions (GB0007) and break the graph.
UNTRACED = frozenset({"barrier", "broadcast", "reduce", "gather", "scatter"})
# The collectives Dynamo rewrites to functional ones (torch.distributed._functional_collectives
# .traceable_collective_remaps): traced into the graph, unless called with async_op=True (GB0172).
TRACED = frozenset({"all_reduce", "all_gather", "all_gather_into_tensor", "reduce_scatter_tensor",
                    "all_to_all_single", "reduce_scatter", "_all_gather_base", "_reduce_scatter_base"})
PACKAGES = ("torch.distributed.", "torch.distributed.distributed_c10d.")


class UntraceableCollective(Rule):
    """## What it does
    Finds `torch.distributed` calls in a compiled region that Dynamo cannot put in the graph:
    `dist.barrier()`, `dist.broadcast`, `dist.reduce`, `dist.gather`, `dist.scatter`, and any
    collective called with `async_op=True`.

    ## Why is this bad?
    Dynamo rewrites `dist.all_reduce`, `all_gather(_into_tensor)`, `reduce_scatter(_tensor)` and
    `all_to_all_single` into functional collectives it traces (Inductor can then overlap them with
    compute). The other c10d calls are functions it skips: the graph breaks before the call, the
    collective runs eagerly, and a new graph starts after it. With `async_op=True` even the
    traceable ones break (and so does the returned `Work.wait()`).

    ## How to fix
    Use the traceable form: `dist.all_reduce` (a `broadcast` from rank 0 is an `all_reduce` of a
    tensor zeroed on the other ranks), `dist.all_gather_into_tensor` instead of `gather`, or the
    functional collectives (`torch.distributed._functional_collectives.all_reduce(t, "sum",
    group)`), and drop `async_op=True` inside the region (the compiled graph schedules the wait).
    Move barriers out of the compiled function.

    ## When it is fine
    Outside the compiled region, or once per step at a point where a break costs nothing (the
    first or last statement of the step).

    ## Dynamo says
    `Attempted to call function marked as skipped` (GB0007) for the c10d calls it has no rule for;
    `async_op=True for distributed collectives` (GB0172).
    """

    code = "BL602"
    name = "untraceable-collective"
    stage = Stage.DISTRIBUTED
    message = "`{call}` in {region}: {why}, so the graph breaks at the collective"
    help = "use dist.all_reduce / all_gather_into_tensor / functional collectives without async_op=True, or move the call out of the compiled code"
    dynamo_says = {
        "GB0007": "Attempted to call function marked as skipped",
        "GB0172": "async_op=True for distributed collectives",
    }
    bad = ("import torch\nimport torch.distributed as dist\n\n@torch.compile\ndef f(x):\n"
           "    dist.barrier()\n    return x + 1\n",)
    good = ("import torch\nimport torch.distributed as dist\n\n@torch.compile\ndef f(x):\n"
            "    dist.all_reduce(x)\n    return x + 1\n",)

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.ctx.resolve(node.func) if isinstance(node.func, (cst.Name, cst.Attribute)) else None
        if qualified is None or not qualified.startswith(PACKAGES):
            return
        name = qualified.rpartition(".")[2]
        if name in (UNTRACED | TRACED) and _async(node):
            self.report(node, confidence=Confidence.CERTAIN, says="GB0172", call=f"dist.{name}(..., async_op=True)",
                        why="Dynamo does not trace a collective with `async_op=True`")
        elif name in UNTRACED:
            self.report(node, confidence=Confidence.CERTAIN, says="GB0007", call=f"dist.{name}",
                        why="Dynamo has no rewrite for this c10d call and skips it")


def _async(call: cst.Call) -> bool:
    """`async_op=True` among the call's keywords (a literal True; anything else is not known)."""
    return any(arg.keyword is not None and arg.keyword.value == "async_op"
               and isinstance(arg.value, cst.Name) and arg.value.value == "True" for arg in call.args)
