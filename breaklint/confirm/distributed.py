"""In a rank's worker (`confirm --nproc N`, ranks.py): the process group, the compile of a DDP
target, and a training step timed phase by phase with the communication it does not overlap."""

from __future__ import annotations

import logging
import os
import re
import statistics
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import torch

from .ranks import LAUNCHED
from .usage import TrainingStep


def init_from_environment() -> dict[str, Any] | None:
    """Start the process group from torchrun's variables in a rank confirm launched (None in any
    other worker): NCCL when this host has a CUDA device per rank (this rank on device
    LOCAL_RANK), else gloo."""
    if os.environ.get(LAUNCHED) != "1":
        return None
    world_size = int(os.environ["WORLD_SIZE"])
    import torch.distributed as dist

    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    backend = "nccl" if torch.cuda.is_available() and torch.cuda.device_count() >= world_size else "gloo"
    if backend == "nccl":
        torch.cuda.set_device(local_rank)
    if not dist.is_initialized():
        dist.init_process_group(backend, init_method="env://")
    return {"rank": dist.get_rank(), "world_size": world_size, "backend": backend}


def _ddp(target: Any) -> bool:
    from torch.nn.parallel import DistributedDataParallel

    return isinstance(target, DistributedDataParallel)


def compile_target(target: Any, options: dict[str, Any] | None) -> Any:
    """What a stage calls: the target compiled with `options` (the target itself for None). A
    DDP target keeps DDP outside and gets its module compiled, `DDP(torch.compile(m))`, the
    order BL603 recommends: compiling DDP's own forward would add three breaks in torch's code."""
    if not _ddp(target):
        return torch.compile(target, **options) if options is not None else target
    inner = getattr(target, "_breaklint_inner", None) or target.module
    target._breaklint_inner = inner
    target.module = torch.compile(inner, **options) if options is not None else inner
    return target


def _median_ms(samples: list[float]) -> float | None:
    return statistics.median(samples) * 1000 if samples else None


def time_phases(example: Any, function: Callable[..., Any], cuda: bool, repeat: int) -> dict[str, Any]:
    """A training step split into forward (with the loss), backward and optimizer step, each
    timed with a device synchronise around it (medians of `repeat` steps, after one untimed).
    For a DDP target also the backward under `no_sync()` (no gradient all-reduce): the
    difference is the communication the backward did not hide. What it cannot see: how long the
    all-reduce itself took while the backward ran (it overlaps by design), so the hidden part
    is not measured, only what was left over."""
    training = TrainingStep(example)
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    args, kwargs = example.args, example.kwargs
    phases: dict[str, list[float]] = {"forward": [], "backward": [], "optimizer": [], "backward_no_sync": []}
    ddp = _ddp(example.target)

    def once(timed: bool, no_sync: bool) -> None:
        if training.optimizer is not None:
            training.optimizer.zero_grad(set_to_none=True)
        else:
            for parameter in training.parameters:
                parameter.grad = None
        sync()
        t0 = time.perf_counter()
        context = example.target.no_sync() if no_sync else _Nothing()
        with context:
            loss = training.loss(function(*args, **kwargs))
            sync()
            t1 = time.perf_counter()
            loss.backward()
            sync()
        t2 = time.perf_counter()
        if no_sync:
            if timed:
                phases["backward_no_sync"].append(t2 - t1)
            return
        if training.optimizer is not None:
            training.optimizer.step()
        sync()
        t3 = time.perf_counter()
        if timed:
            phases["forward"].append(t1 - t0)
            phases["backward"].append(t2 - t1)
            if training.optimizer is not None:
                phases["optimizer"].append(t3 - t2)

    once(False, False)
    for _ in range(repeat):
        once(True, False)
        if ddp:
            once(True, True)
    result = {name: _median_ms(samples) for name, samples in phases.items() if samples}
    if ddp and result.get("backward") is not None and result.get("backward_no_sync") is not None:
        result["exposed_communication"] = max(0.0, result["backward"] - result["backward_no_sync"])
    return result


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


DDP_LOGGER = "torch._dynamo.backends.distributed"
_BUCKETS = re.compile(r"DDPOptimizer used bucket cap (?P<cap>\d+) and created (?P<count>\d+) buckets")


class _Buckets(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.counts: list[int] = []

    def emit(self, record: logging.LogRecord) -> None:
        match = _BUCKETS.search(record.getMessage())
        if match:
            self.counts.append(int(match["count"]))


@contextmanager
def ddp_buckets() -> Iterator[list[int]]:
    """The bucket counts DDPOptimizer logs while the block runs (one per graph it split: the
    number of subgraphs it compiled), from its INFO record, which is otherwise not printed."""
    logger = logging.getLogger(DDP_LOGGER)
    handler, level = _Buckets(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler.counts
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
