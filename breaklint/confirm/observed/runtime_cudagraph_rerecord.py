from __future__ import annotations

from breaklint.finding import Severity, Stage

from .base import SECTIONS, Observed


class RuntimeCudagraphRerecord(Observed):
    __doc__ = """## What it does
    Reports that CUDA graph trees (`mode="reduce-overhead"`) kept recording instead of
    replaying: one graph of the trees recorded, warmed up or ran eagerly on (nearly) every
    call after the first, or started a new tree on (nearly) every call for a new value of its
    integer inputs, or the warning that a previous call's outputs still wait for a backward
    ("Unable to hit fast path of CUDAGraphs"), where no static rule predicted it. Counted per
    graph (function, compile id, mode): a step of many graphs that each record once is fine.

    ## Why is this bad?
    A recording costs far more than the eager call it replaces (a warm-up run, a capture and
    the graph's own memory): the stage that should be fastest is the slowest. Measured on an
    H200 (torch 2.11): resnet50 at batch 1 with grad enabled and no backward took 58.9 ms a
    call under reduce-overhead, 0.81 ms under `torch.no_grad()` (Inductor alone: 2.06 ms).

    ## How to fix
    For inference, call the compiled model under `torch.no_grad()` or `torch.inference_mode()`
    (BL506 finds the calls that do not). Otherwise: run the backward of each step, detach
    outputs you keep, or call `torch.compiler.cudagraph_mark_step_begin()` before each call
    (torch's remedy when the trees cannot tell that a new step began, as when they run graphs
    eagerly on every step, still warming up). For an integer input that changes every call (a
    counter, a position), make it a tensor; for inputs whose shape changes every call, see
    BL505. The message names the graph (`partition_0 [4/1]`: its function and compile id, as in
    `TORCH_LOGS=cudagraphs`) and quotes the trees' reason where they logged one.
    """ + SECTIONS
    code = "BL591"
    name = "runtime-cudagraph-rerecord"
    stage = Stage.CUDAGRAPHS
    severity = Severity.WARNING
