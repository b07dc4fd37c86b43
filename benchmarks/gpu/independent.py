"""Times the models of real_models.py per stage with a plain CUDA-events loop, without breaklint's
worker, in the same run as `breaklint confirm`: the check that confirm's ladder tells the truth.

    python benchmarks/gpu/independent.py OUT.json [--calls 50] [--warmup 10] [--only NAME ...]

Per model and stage: torch.compile as the stage says (a fresh Dynamo cache), warm-up calls (half
a second at least), then N calls each between two CUDA events after a synchronize (the median),
the mean of N back-to-back calls between one pair of events, and a second round of the median. Inference runs under torch.no_grad(); the
training step is forward, loss, backward and AdamW's step. Also, for resnet50 under
reduce-overhead, the pitfall confirm used to measure: grad enabled, no backward, each output
alive until the next call returns.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import torch

HERE = Path(__file__).resolve().parent
STAGES = {  # the same five stages as breaklint/confirm/stages.py, spelled out here on purpose
    "eager": None,
    "dynamo": {"backend": "eager"},
    "aot_eager": {"backend": "aot_eager"},
    "inductor": {"backend": "inductor"},
    "cudagraphs": {"backend": "inductor", "mode": "reduce-overhead"},
}
MODELS = ("resnet50_bs1", "gpt2_prefill", "llama_8_layers", "gpt2_training_step")


def load_models() -> Any:
    spec = importlib.util.spec_from_file_location("real_models", HERE / "real_models.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def events_ms(call: Callable[[], Any], calls: int, warmup: int) -> tuple[float, float]:
    started = time.perf_counter()
    done = 0
    while done < warmup or time.perf_counter() - started < 0.5:  # the GPU's clocks come up first
        call()
        done += 1
    torch.cuda.synchronize()
    gc.disable()
    each = []
    for _ in range(calls):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        call()
        end.record()
        end.synchronize()
        each.append(start.elapsed_time(end))
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        call()
    end.record()
    end.synchronize()
    gc.enable()
    return statistics.median(each), start.elapsed_time(end) / calls


def step_of(name: str, example: Any, compiled: Any) -> Callable[[], Any]:
    if name.endswith("training_step"):
        optimizer = torch.optim.AdamW(example.target.parameters(), lr=1e-4)

        def train() -> Any:
            optimizer.zero_grad(set_to_none=True)
            loss = compiled(*example.args, **example.kwargs).loss
            loss.backward()
            optimizer.step()
            return loss.detach()

        return train

    def infer() -> Any:
        with torch.no_grad():
            return compiled(*example.args, **example.kwargs)

    return infer


def with_grad_no_backward(example: Any, calls: int, warmup: int) -> dict[str, Any]:
    """reduce-overhead called as confirm used to: grad enabled, no backward, the previous output
    alive while the next call runs (`y = model(x)` in a loop)."""
    torch._dynamo.reset()
    compiled = torch.compile(example.target, mode="reduce-overhead")
    held: list[Any] = [None]

    def call() -> None:
        held[0] = compiled(*example.args, **example.kwargs)

    started = time.perf_counter()
    call()
    torch.cuda.synchronize()
    first = time.perf_counter() - started
    median, mean = events_ms(call, calls, warmup)
    return {"first_call_s": first, "median_ms": median, "loop_mean_ms": mean}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--only", nargs="*", default=list(MODELS))
    options = parser.parse_args()
    models = load_models()
    results: dict[str, Any] = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "models": {}}
    for name in options.only:
        example = getattr(models, name)()
        rows = results["models"].setdefault(name, {})
        for stage, compile_options in STAGES.items():
            torch._dynamo.reset()
            compiled = torch.compile(example.target, **compile_options) if compile_options else example.target
            step = step_of(name, example, compiled)
            started = time.perf_counter()
            try:
                step()
                torch.cuda.synchronize()
                first = time.perf_counter() - started
                median, mean = events_ms(step, options.calls, options.warmup)
                again, _ = events_ms(step, options.calls, 0)  # a second round: this timer's own spread
                rows[stage] = {"first_call_s": first, "median_ms": median, "loop_mean_ms": mean,
                               "median_ms_again": again}
            except Exception as error:  # a stage that fails is a result too
                rows[stage] = {"error": f"{type(error).__name__}: {str(error)[:300]}"}
            print(f"{name} {stage}: {rows[stage]}", flush=True)
            options.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
        if name == "resnet50_bs1":
            rows["cudagraphs_grad_no_backward"] = with_grad_no_backward(example, options.calls, options.warmup)
            print(f"{name} cudagraphs with grad, no backward: {rows['cudagraphs_grad_no_backward']}", flush=True)
            options.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
        del example
        torch.cuda.empty_cache()


if __name__ == "__main__":
    sys.exit(main())
