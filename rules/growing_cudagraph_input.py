from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from breaklint.finding import Confidence, Span, Stage
from breaklint.rule import dotted, FileContext, Rule

from ._cudagraphs import cudagraph_names

# Calls that make a tensor longer when it is one of their inputs: `x = torch.cat([x, y])`.
CONCATS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.hstack", "torch.vstack",
                     "torch.column_stack"})
MODES = ("reduce-overhead", "max-autotune")  # cheap text test before any walk


@dataclass
class _Loop:
    targets: set[str]  # the `for` target's names: `x[:, :step]` grows with them
    grown: set[str] = field(default_factory=set)  # names rebound to a concatenation of themselves


@dataclass(frozen=True)
class _Call:
    callee: str
    args: tuple[cst.BaseExpression, ...]
    loops: tuple[_Loop, ...]  # every loop the call sits in, outermost first
    span: Span


def _names(node: cst.CSTNode) -> set[str]:
    """Every name read in `node` (a loop target, a slice bound): small trees, walked directly."""
    if isinstance(node, cst.Name):
        return {node.value}
    return set().union(*(_names(child) for child in node.children))


class GrowingCudagraphInput(Rule):
    """## What it does
    Finds a callable compiled with `mode="reduce-overhead"` (or `"max-autotune"`) that is called
    in a loop with a tensor that grows from one iteration to the next: rebound to
    `torch.cat([x, new], ...)` in the loop (a decoding loop that appends each new token), or
    sliced up to the loop variable (`x[:, :step]`).

    ## Why is this bad?
    A CUDA graph replays fixed shapes. Under dynamic shapes, CUDA graph trees record a new graph
    for every distinct input size: each new length pays a recording (a warm-up run and a
    capture) and keeps its own graph and memory, so a loop over growing inputs records a graph
    per step and never replays one. Past 8 sizes Inductor warns.

    ## How to fix
    Give the compiled call fixed shapes: preallocate the buffer at its maximum length and pass
    the whole buffer with the current position as a tensor (a static KV cache), or pad inputs
    to a few bucket sizes. Where shapes must vary, compile without CUDA graphs or set
    `torch._inductor.config.triton.cudagraph_skip_dynamic_graphs = True`. Call
    `torch.compiler.cudagraph_mark_step_begin()` before each step when outputs of one step are
    inputs of the next.

    ## When it is fine
    When the loop runs for a few steps only: a handful of recorded graphs is cheap.

    ## Dynamo says
    Inductor's `cudagraphs` log warns `CUDAGraph supports dynamic shapes by recording a new graph
    for each distinct input size. Recording too many CUDAGraphs may lead to extra overhead. We
    have observed 9 distinct sizes.` (it names no line). Proven on an H200 (torch 2.11):
    testdata/rules/BL505, benchmarks/results/gpu/.
    """

    code = "BL505"
    name = "growing-cudagraph-input"
    stage = Stage.CUDAGRAPHS
    message = ("`{callee}` (compiled with CUDA graphs) is called in a loop with `{arg}`, which grows every "
               "iteration: CUDA graphs record a new graph for each distinct size instead of replaying one")
    help = "pass fixed shapes (a preallocated buffer and the position as a tensor), or pad to a few bucket sizes"
    dynamo_says = {"cudagraph-rerecord": "`CUDAGraph supports dynamic shapes by recording a new graph for each "
                                         "distinct input size`"}
    bad = (
        "import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n\nmodel = torch.compile(Net(), mode='reduce-overhead')\n\n"
        "def generate(tokens, steps):\n    for _ in range(steps):\n        out = model(tokens)\n"
        "        tokens = torch.cat([tokens, out[-1:]], dim=0)\n    return tokens\n",
    )
    good = (
        "import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n\nmodel = torch.compile(Net(), mode='reduce-overhead')\n\n"
        "def generate(tokens, steps):\n    for _ in range(steps):\n        tokens = model(tokens)\n    return tokens\n",
        "import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n\nmodel = torch.compile(Net())\n\n"
        "def generate(tokens, steps):\n    for _ in range(steps):\n        out = model(tokens)\n"
        "        tokens = torch.cat([tokens, out[-1:]], dim=0)\n    return tokens\n",
    )

    file_scope = True  # the calls live outside compiled regions

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.compiled: set[str] = set()  # names bound to callables compiled with CUDA graphs (end_file)
        self.loops: list[_Loop] = []
        self.calls: list[_Call] = []

    @classmethod
    def reads_whole_file(cls, text: str) -> bool:
        return any(mode in text for mode in MODES)

    def _resolve(self, expr: cst.BaseExpression) -> str | None:
        return self.ctx.module.imports.resolve(expr)

    # --- what is compiled with CUDA graphs -----------------------------------------------
    def file_visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        if self.loops and isinstance(value, cst.Call) and self._resolve(value.func) in CONCATS and value.args:
            parts = value.args[0].value
            elements = parts.elements if isinstance(parts, (cst.List, cst.Tuple)) else ()
            inputs = {dotted(e.value) for e in elements}
            for target in node.targets:
                name = dotted(target.target)
                if name is not None and name in inputs:
                    self.loops[-1].grown.add(name)

    # --- loops and the calls in them -----------------------------------------------------
    def file_visit_For(self, node: cst.For) -> None:
        self.loops.append(_Loop(_names(node.target)))

    def file_leave_For(self, original_node: cst.For) -> None:
        self.loops.pop()

    def file_visit_While(self, node: cst.While) -> None:
        self.loops.append(_Loop(set()))

    def file_leave_While(self, original_node: cst.While) -> None:
        self.loops.pop()

    def file_visit_Call(self, node: cst.Call) -> None:
        callee = dotted(node.func) if self.loops else None
        if callee is not None:
            args = tuple(arg.value for arg in node.args)
            self.calls.append(_Call(callee, args, tuple(self.loops), self.ctx.file.span(node)))

    def end_file(self) -> None:
        self.compiled = cudagraph_names(self.ctx, modules_only=False)  # the index's fact (_cudagraphs.py)
        for call in self.calls:
            if call.callee not in self.compiled:
                continue
            arg = next((a for a in call.args if self._grows(a, call.loops)), None)
            if arg is not None:
                text = self.message.format(callee=call.callee, arg=cst.Module([]).code_for_node(arg))
                self.ctx.emit(self.make_finding(self.ctx.file.display, call.span, text, Confidence.LIKELY,
                                                None, "cudagraph-rerecord", target=self.ctx.target_torch))

    @staticmethod
    def _grows(arg: cst.BaseExpression, loops: tuple[_Loop, ...]) -> bool:
        name = dotted(arg)
        if name is not None:
            return any(name in loop.grown for loop in loops)
        if isinstance(arg, cst.Subscript):  # x[:, :step]: a slice bound that moves with the loop
            targets = set().union(*(loop.targets for loop in loops))
            return any(isinstance(s.slice, cst.Slice) and _names(s.slice) & targets for s in arg.slice)
        return False
