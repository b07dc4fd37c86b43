"""BL602 positives: each marked line graph-breaks under real Dynamo (torch 2.13, gloo, world size 1)."""
import torch
import torch.distributed as dist
from torch.distributed import broadcast as bcast

PROCESS_GROUP = "gloo"  # the runner starts a world-size-1 gloo group before importing this file


@torch.compile
def synced(x):
    y = x * 2
    dist.barrier()  # expect: BL602
    return y + 1


@torch.compile
def from_rank0(x):
    y = x.clone()
    dist.broadcast(y, src=0)  # expect: BL602
    return y + 1


@torch.compile
def aliased(x):
    y = x.clone()
    bcast(y, 0)  # expect: BL602
    return y * 3


@torch.compile
def reduced(x):
    y = x.clone()
    torch.distributed.reduce(y, dst=0)  # expect: BL602
    return y - 1


@torch.compile
def gathered(x):
    out = [torch.empty_like(x)] if dist.get_rank() == 0 else None
    dist.gather(x, out, dst=0)  # expect: BL602
    return x + 1


@torch.compile
def scattered(x):
    y = torch.empty_like(x)
    dist.scatter(y, [x.clone()], src=0)  # expect: BL602
    return y + 1


@torch.compile
def overlapped(x):
    y = x * 2
    work = dist.all_reduce(y, async_op=True)  # expect: BL602
    return y + 1, work


@torch.compile
def every_layer(x):
    for _ in range(2):
        x = x * 2
        dist.barrier()  # expect: BL602
    return x
