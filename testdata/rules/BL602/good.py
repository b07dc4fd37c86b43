"""BL602 negatives: the collectives Dynamo rewrites to functional ones trace into the graph
(torch 2.13, gloo, world size 1): no break, nothing flagged."""
import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol

PROCESS_GROUP = "gloo"


@torch.compile
def summed(x):
    y = x * 2
    dist.all_reduce(y)
    return y + 1


@torch.compile
def gathered(x):
    out = torch.empty(dist.get_world_size() * x.shape[0], x.shape[1])
    dist.all_gather_into_tensor(out, x)
    return out + 1


@torch.compile
def listed(x):
    out = [torch.empty_like(x) for _ in range(dist.get_world_size())]
    dist.all_gather(out, x)
    return torch.cat(out) + 1


@torch.compile
def scattered(x):
    out = torch.empty(x.shape[0] // dist.get_world_size(), x.shape[1])
    dist.reduce_scatter_tensor(out, x)
    return out + 1


@torch.compile
def exchanged(x):
    out = torch.empty_like(x)
    dist.all_to_all_single(out, x)
    return out + 1


@torch.compile
def functional(x):
    return funcol.all_reduce(x * 2, "sum", dist.group.WORLD) + 1


@torch.compile
def blocking(x):
    y = x * 2
    dist.all_reduce(y, async_op=False)
    return y


def outside(x):
    dist.barrier()  # not compiled
    return x
