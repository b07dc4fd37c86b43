"""What Dynamo does with DDP, ranks and collectives (CPU, gloo): the measurements behind BL6xx.

    python benchmarks/distributed/probe.py            # world size 1, one process
    python benchmarks/distributed/probe.py --world 2  # two processes (torch.multiprocessing.spawn)

Prints one line per case: the graphs the backend was handed, graph breaks (Dynamo's own
counters) and the break reasons Dynamo logged. docs/distributed.md records what it printed.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import re
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Stack(nn.Module):
    def __init__(self, width: int, depth: int) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


class Reasons(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def run(name: str, make, calls, rank: int) -> None:
    torch._dynamo.reset()
    graphs: list[int] = []

    def counting(gm, inputs):
        graphs.append(len(gm.graph.nodes))
        return gm.forward

    handler = Reasons()
    logger = logging.getLogger("torch._dynamo")
    logger.addHandler(handler)
    torch._logging.set_logs(graph_breaks=True, recompiles=True)
    from torch._dynamo.utils import counters
    counters.clear()
    error = ""
    try:
        fn = make(counting)
        for call in calls:
            call(fn)
    except Exception as exc:  # the probe records what happened, whatever it is
        error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
    finally:
        logger.removeHandler(handler)
        torch._logging.set_logs()
    breaks = sum(counters["graph_break"].values())
    reasons = sorted({line.splitlines()[0][:160] for line in handler.lines
                      if "Graph break" in line or "Recompiling" in line or "GB" in line})
    extra = [line.splitlines()[0][:200] for line in handler.lines if "DDPOptimizer" in line]
    # Every rank prints: where ranks differ is a finding of its own.
    ids = sorted({m.upper() for line in handler.lines for m in re.findall(r"gb/(gb\d{4})\.html", line)})
    recompiles = sum(1 for line in handler.lines if line.startswith("Recompiling"))
    print(f"[rank {rank}] {name}: graphs={len(graphs)} breaks={breaks} recompiles={recompiles} "
          f"gb_ids={','.join(ids) or '-'} error={error!r}", flush=True)
    for line in reasons + extra:
        print(f"[rank {rank}]     {line}", flush=True)
    for key, value in counters["graph_break"].items():
        print(f"[rank {rank}]     counter: {key.splitlines()[0][:120]!r} / {key.splitlines()[2].strip()[:160] if len(key.splitlines()) > 2 else ''!r} x{value}", flush=True)


def cases(rank: int, world: int) -> None:
    x = torch.randn(8, 1024)

    def fwd_bwd(fn):
        fn(x).sum().backward()

    for cap in (25, 1, 4):
        run(f"compile(DDP(4 x Linear(1024,1024), bucket_cap_mb={cap}))",
            lambda b, cap=cap: torch.compile(DDP(Stack(1024, 4), bucket_cap_mb=cap), backend=b), [fwd_bwd], rank)
        run(f"DDP(compile(4 x Linear(1024,1024)), bucket_cap_mb={cap})",
            lambda b, cap=cap: DDP(torch.compile(Stack(1024, 4), backend=b), bucket_cap_mb=cap), [fwd_bwd], rank)
    with torch._dynamo.config.patch(optimize_ddp=False):
        run("compile(DDP(4 x Linear(1024,1024), bucket_cap_mb=1)) optimize_ddp=False",
            lambda b: torch.compile(DDP(Stack(1024, 4), bucket_cap_mb=1), backend=b), [fwd_bwd], rank)
    run("plain compile (no DDP)", lambda b: torch.compile(Stack(1024, 4), backend=b), [fwd_bwd], rank)

    # (b) rank queries
    def rank_branch(y):
        if dist.get_rank() == 0:
            return y * 2
        return y + 1

    def rank_value(y):
        return y * dist.get_world_size() + dist.get_rank()

    run("if dist.get_rank() == 0 in region", lambda b: torch.compile(rank_branch, backend=b), [lambda f: f(x), lambda f: f(x)], rank)
    run("y * get_world_size() + get_rank()", lambda b: torch.compile(rank_value, backend=b), [lambda f: f(x)], rank)

    def env_rank(y):
        if int(os.environ["RANK"]) == 0:
            return y * 2
        return y + 1
    run("int(os.environ['RANK']) branch", lambda b: torch.compile(env_rank, backend=b), [lambda f: f(x)], rank)

    # (c) collectives
    def all_reduce(y):
        z = y * 2
        dist.all_reduce(z)
        return z + 1

    def all_gather(y):
        out = torch.empty(world * y.shape[0], y.shape[1])
        dist.all_gather_into_tensor(out, y)
        return out + 1

    def barrier(y):
        dist.barrier()
        return y + 1

    import torch.distributed._functional_collectives as funcol

    def functional(y):
        z = funcol.all_reduce(y * 2, "sum", dist.group.WORLD)
        return z + 1

    def broadcast(y):
        z = y.clone()
        dist.broadcast(z, 0)
        return z + 1

    def reduce(y):
        z = y.clone()
        dist.reduce(z, 0)
        return z + 1

    def gather_list(y):
        out = [torch.empty_like(y) for _ in range(world)]
        dist.all_gather(out, y)
        return torch.cat(out) + 1

    def reduce_scatter(y):
        out = torch.empty(y.shape[0] // world, y.shape[1])
        dist.reduce_scatter_tensor(out, y)
        return out + 1

    def all_to_all(y):
        out = torch.empty_like(y)
        dist.all_to_all_single(out, y)
        return out + 1

    def async_op(y):
        z = y * 2
        work = dist.all_reduce(z, async_op=True)
        work.wait()
        return z + 1

    def gather(y):
        out = [torch.empty_like(y) for _ in range(world)] if rank == 0 else None
        dist.gather(y, out, dst=0)
        return y + 1

    def gather_object(y):
        objects = [None] * world
        dist.all_gather_object(objects, 1)
        return y + 1

    for name, f in (("dist.all_reduce", all_reduce), ("dist.all_gather_into_tensor", all_gather),
                    ("dist.barrier", barrier), ("funcol.all_reduce", functional), ("dist.broadcast", broadcast),
                    ("dist.reduce", reduce), ("dist.all_gather (list)", gather_list),
                    ("dist.reduce_scatter_tensor", reduce_scatter), ("dist.all_to_all_single", all_to_all),
                    ("dist.all_reduce(async_op=True) + wait()", async_op), ("dist.gather", gather),
                    ("dist.all_gather_object", gather_object)):
        run(f"{name} in region", lambda b, f=f: torch.compile(f, backend=b), [lambda fn: fn(x)], rank)

    # (d) no_sync toggled between calls of a compiled DDP model
    def no_sync_calls(fn):
        with fn.no_sync():
            fn(x).sum().backward()
        fn(x).sum().backward()
        with fn.no_sync():
            fn(x).sum().backward()

    run("DDP(compile(m)) with no_sync() toggled", lambda b: DDP(torch.compile(Stack(1024, 2), backend=b)), [no_sync_calls], rank)

    def no_sync_outer(fn):
        inner = fn._orig_mod
        with inner.no_sync():
            fn(x).sum().backward()
        fn(x).sum().backward()
        with inner.no_sync():
            fn(x).sum().backward()

    run("compile(DDP(m)) with no_sync() toggled", lambda b: torch.compile(DDP(Stack(1024, 2)), backend=b), [no_sync_outer], rank)

    # (e) FSDP2
    from torch.distributed.fsdp import fully_shard

    def fsdp(b):
        m = Stack(64, 2)
        for layer in m.layers:
            fully_shard(layer)
        fully_shard(m)
        return torch.compile(m, backend=b)

    y = torch.randn(4, 64)
    run("compile(fully_shard(m)), sharded layers called in a loop", fsdp, [lambda fn: fn(y).sum().backward()], rank)

    class Two(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(64, 64)
            self.b = nn.Linear(64, 64)

        def forward(self, v: torch.Tensor) -> torch.Tensor:
            return self.b(torch.relu(self.a(v)))

    def fsdp_two(b, inner: bool):
        m = Two()
        if inner:
            fully_shard(m.a)
            fully_shard(m.b)
        fully_shard(m)
        return torch.compile(m, backend=b)

    step = [lambda fn: fn(y).sum().backward(), lambda fn: fn(y).sum().backward()]
    run("compile(fully_shard(m)), sharded layers called in sequence", lambda b: fsdp_two(b, True), step, rank)
    run("compile(fully_shard(m)), only the root sharded", lambda b: fsdp_two(b, False), step, rank)

    def shard_compiled_layers(b):
        m = Two()
        m.a = torch.compile(m.a, backend=b)
        m.b = torch.compile(m.b, backend=b)
        fully_shard(m.a)
        fully_shard(m.b)
        fully_shard(m)
        return m

    run("fully_shard(torch.compile(layer)) per layer", shard_compiled_layers, step[:1], rank)

    def compile_method_then_shard(b):
        m = Two()
        for layer in (m.a, m.b):
            layer.compile(backend=b)
            fully_shard(layer)
        fully_shard(m)
        return m

    run("layer.compile() then fully_shard(layer), root not compiled", compile_method_then_shard, step, rank)


def main(rank: int, world: int) -> None:
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    os.environ["RANK"] = str(rank)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        cases(rank, world)
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--world", type=int, default=1)
    args = parser.parse_args()
    print(f"torch {torch.__version__}, python {sys.version.split()[0]}, world size {args.world}", flush=True)
    if args.world == 1:
        main(0, 1)
    else:
        torch.multiprocessing.spawn(main, args=(args.world,), nprocs=args.world)
