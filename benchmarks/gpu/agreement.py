"""confirm's ladder against an independent CUDA-events timer, in ONE process, around the same
compiled callables, interleaved: the check that the ladder tells the truth.

    python benchmarks/gpu/agreement.py OUT.json [--rounds 5] [--calls 100] [--only NAME ...]

Per model of real_models.py and stage, confirm's own code builds, compiles and times the stage
(`worker.run_stage`: the usage wrapper, the first call, the capture of compiler events around
the timing, `median_ms` with its warm-up). Its timer is given here as one that runs, in ROUNDS
rounds, confirm's `median_ms` (CALLS calls, its own warm-up each round) with one call of the
independent timer below after each of confirm's timed calls (median_ms's `between`, outside
its timing): the two timers' calls alternate, milliseconds apart, so that a drift of the
machine's speed falls on both. (--by-rounds: whole rounds of each instead, A B then B A, the
independent rounds warmed up as confirm's; on the H200 machine adjacent rounds of a launch-bound
stage moved by up to 50 % (real/8-models), which pairs of rounds cannot cancel.)
The independent timer is written here on purpose, sharing no code with breaklint: it calls the
compiled callable itself (its own `torch.no_grad()`, or its own forward, loss, backward and
AdamW step), a synchronize, then one pair of CUDA events around each call, and the median.
The agreement of a stage is the median over rounds of the two timers' ratio within a round;
the median of each timer's rounds is kept beside it. After the stage,
one more independent round runs outside confirm's capture of compiler events, to show that
listening costs nothing. Before the models, `hook_overhead_ms` times what --ladder's own timer
adds to a call, as a timer around it sees it. Results are written after every stage.

Why one process: across two processes on the GPU machine the same model's figures differed by
up to 50 % (benchmarks/results/gpu/real/README.md); between rounds of one process by far less.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import torch

from breaklint.confirm import worker
from breaklint.confirm.stages import STAGES

HERE = Path(__file__).resolve().parent
MODELS = ("resnet50_bs1", "gpt2_prefill", "llama_8_layers", "gpt2_training_step")
TOLERANCE = 0.10


def independent_once(call: Callable[[], Any]) -> float:
    """One call alone between two CUDA events after a synchronize, in ms (on a machine without a
    GPU, for a smoke test only, the clock)."""
    if not torch.cuda.is_available():
        started = time.perf_counter()
        call()
        return (time.perf_counter() - started) * 1000
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    call()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def independent_ms(call: Callable[[], Any], calls: int, warmup: int, warm_s: float = 0.0) -> float:
    """The median of CALLS calls timed one by one (independent_once); first WARMUP calls, and
    more until WARM_S seconds have passed."""
    started, done = time.perf_counter(), 0
    while done < warmup or time.perf_counter() - started < warm_s:
        call()
        done += 1
    collecting = gc.isenabled()
    gc.disable()
    try:
        return statistics.median(independent_once(call) for _ in range(calls))
    finally:
        if collecting:
            gc.enable()


def own_step(example: Any, training: bool, compiled: Any) -> Callable[[], Any]:
    """The compiled callable called as its user would: served under no_grad, or one training step."""
    args, kwargs = example.args, example.kwargs
    if training:
        optimizer = torch.optim.AdamW([p for p in example.target.parameters() if p.requires_grad], lr=1e-4)

        def train() -> Any:
            optimizer.zero_grad(set_to_none=True)
            loss = compiled(*args, **kwargs).loss
            loss.backward()
            optimizer.step()
            return loss.detach()

        return train

    def infer() -> Any:
        with torch.no_grad():
            return compiled(*args, **kwargs)

    return infer


def hook_overhead_ms(calls: int = 400) -> dict[str, float]:
    """What --ladder's timer adds to a call that a timer around it sees (the decode loop times
    its steps around the ladder's): CUDA events around a small kernel, bare and through the
    hook's wrapper (breaklint.confirm.hook.CallTimes), alternating; medians of each."""
    from breaklint.confirm.hook import CallTimes

    x = torch.ones(1024, device="cuda")
    bare = x.add_
    times = CallTimes()
    wrapped = times.wrap(bare, "add_")
    found: dict[str, list[float]] = {"bare": [], "wrapped": []}
    for index in range(calls):
        for name, call in (("bare", bare), ("wrapped", wrapped)) if index % 2 == 0 else \
                (("wrapped", wrapped), ("bare", bare)):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            start.record()
            call(1.0)
            end.record()
            end.synchronize()
            found[name].append(start.elapsed_time(end))
    times.summary()
    medians = {name: statistics.median(values[calls // 4:]) for name, values in found.items()}  # warm-up left out
    return {**medians, "added": medians["wrapped"] - medians["bare"]}


class Interleaved:
    """confirm's timer (worker.median_ms) and the independent one, round after round: in
    `by_call` mode an independent call after each of confirm's timed calls (median_ms's
    `between`), so that the two timers' calls alternate within milliseconds; else whole rounds
    of each, A B then B A."""

    def __init__(self, rounds: int, independent: Callable[[], Callable[[], Any]], warmup: int, warm_s: float,
                 by_call: bool = True) -> None:
        self.rounds, self.warmup, self.warm_s, self.by_call = rounds, warmup, warm_s, by_call
        self.independent = independent  # made once the stage has compiled
        self.confirm: list[float] = []
        self.other: list[float] = []

    def __call__(self, call: Callable[[], Any], cuda: bool, repeat: int, warmup: int) -> tuple[float, int]:
        theirs = self.independent()
        made = 0
        for index in range(self.rounds):
            if self.by_call:
                for _ in range(self.warmup):
                    theirs()
                each: list[float] = []
                median, calls = worker.median_ms(call, cuda, repeat, warmup, between=lambda: each.append(
                    independent_once(theirs)))
                self.confirm.append(median)
                self.other.append(statistics.median(each))
                made += calls
                continue
            order = ("confirm", "other") if index % 2 == 0 else ("other", "confirm")
            for who in order:
                if who == "confirm":
                    median, calls = worker.median_ms(call, cuda, repeat, warmup)
                    self.confirm.append(median)
                    made += calls
                else:
                    self.other.append(independent_ms(theirs, repeat, self.warmup, self.warm_s))
        # confirm reports its own timer's figure: the median of its rounds.
        return statistics.median(self.confirm), made


def spread(values: list[float]) -> float:
    return max(values) / min(values) - 1 if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--only", nargs="*", default=list(MODELS))
    parser.add_argument("--stages", nargs="*", default=[s.name for s in STAGES])
    parser.add_argument("--independent-warmup", type=int, default=None,
                        help="the independent timer's warm-up calls a round (default: confirm's, --warmup)")
    parser.add_argument("--independent-warm-s", type=float, default=worker.WARM_S,
                        help="... and at least so many seconds of them (default: confirm's, worker.WARM_S)")
    parser.add_argument("--models", type=Path, default=HERE / "real_models.py", help="the providers' file")
    parser.add_argument("--by-rounds", action="store_true",
                        help="whole rounds of each timer, A B then B A (real/8-models), not call by call")
    options = parser.parse_args()
    if options.independent_warmup is None:
        options.independent_warmup = options.warmup
    cuda = torch.cuda.is_available()
    results: dict[str, Any] = {"torch": torch.__version__, "device": torch.cuda.get_device_name() if cuda else "cpu",
                               "rounds": options.rounds, "calls": options.calls,
                               "independent_warmup": options.independent_warmup,
                               "independent_warm_s": options.independent_warm_s,
                               "interleaved": "by rounds" if options.by_rounds else "by call", "models": {}}
    if cuda:
        results["hook_overhead_ms"] = hook_overhead_ms()
        print(f"hook overhead: {results['hook_overhead_ms']}", flush=True)
    for name in options.only:
        example = worker.load_example(options.models, name)
        example.probe = False  # the recompile probe would leave a second graph for the round after the stage
        usage = worker.usage_of(example)
        confirm_steps, described = worker.make_step(example, usage)
        rows = results["models"].setdefault(name, {"usage": described, "stages": {}})["stages"]
        for stage in (s for s in STAGES if s.name in options.stages):
            seen: dict[str, Any] = {}

            def steps(compiled: Any, seen: dict[str, Any] = seen) -> worker.Step:
                seen["compiled"] = compiled  # the very callable confirm times
                return confirm_steps(compiled)

            timer = Interleaved(options.rounds, lambda: own_step(example, usage == "training", seen["compiled"]),
                                options.independent_warmup, options.independent_warm_s, not options.by_rounds)
            started = time.perf_counter()
            record, _ = worker.run_stage(stage, example, steps, cuda, options.calls, options.warmup,
                                         lambda stage, phase: None, timer)
            row: dict[str, Any] = {"record": record, "seconds": time.perf_counter() - started,
                                   "confirm_rounds_ms": timer.confirm, "independent_rounds_ms": timer.other}
            if timer.confirm and timer.other:
                ours, theirs = statistics.median(timer.confirm), statistics.median(timer.other)
                # Each round's two timings are adjacent (A B, then B A): their ratio leaves out
                # how the machine's speed moved between rounds, which the medians of the rounds
                # keep (a launch-bound stage's round moved by up to 76 % in 5-models).
                paired = [a / b - 1 for a, b in zip(timer.confirm, timer.other)]
                row.update(confirm_ms=ours, independent_ms=theirs, difference=statistics.median(paired),
                           difference_of_medians=ours / theirs - 1,
                           paired_differences=paired, confirm_spread=spread(timer.confirm),
                           independent_spread=spread(timer.other))
                outside = own_step(example, usage == "training", seen["compiled"])
                row["independent_outside_capture_ms"] = independent_ms(outside, options.calls, 3)
            rows[stage.name] = row
            seen.clear()
            print(f"{name} {stage.name}: confirm {row.get('confirm_ms')} independent {row.get('independent_ms')} "
                  f"difference {row.get('difference')} outside {row.get('independent_outside_capture_ms')} "
                  f"error {(record.get('error') or {}).get('message', '')[:200]}", flush=True)
            options.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
        del example, confirm_steps
        torch._dynamo.reset()
        gc.collect()
        if cuda:
            torch.cuda.empty_cache()


if __name__ == "__main__":
    sys.exit(main())
