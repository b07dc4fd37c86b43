"""A DDP training step for `breaklint confirm --nproc 2 testdata/distributed_targets` (gloo on CPU,
NCCL with a GPU per rank): confirm starts the process group before this provider runs.

The model's forward syncs with a barrier (BL602: Dynamo breaks there), and rank 0 alone
branches on a Python flag that changes the graph it compiles (seen only on rank 0)."""
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

import breaklint

# confirm picks NCCL (and puts this rank on its GPU) when there is a GPU per rank.
DEVICE = "cuda" if torch.cuda.is_available() and torch.cuda.device_count() >= int(os.environ.get("WORLD_SIZE", "1")) else "cpu"


class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                                    nn.Linear(512, 512))

    def forward(self, x):
        y = self.layers(x)
        dist.barrier()  # every rank waits here: a graph break in the compiled forward
        if dist.get_rank() == 0:
            y = y * 2  # rank 0 compiles another graph than the others (no break, no guard)
        return y


@breaklint.example
def ddp_step():
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    model = Tower().to(DEVICE)
    ddp = DDP(model, device_ids=[local_rank] if DEVICE == "cuda" else None, bucket_cap_mb=1)
    x = torch.randn(32, 512, device=DEVICE)
    return breaklint.Example(ddp, (x,), usage="training",
                             optimizer=lambda params: torch.optim.SGD(params, lr=0.01))
