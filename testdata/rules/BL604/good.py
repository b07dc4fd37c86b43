"""BL604 negatives: only the root sharded, or each sharded layer compiled on its own (what FSDP2
recommends): no break, nothing flagged (torch 2.13, gloo, world size 1)."""
import torch
from torch import nn
from torch.distributed.fsdp import fully_shard

PROCESS_GROUP = "gloo"
X = torch.randn(4, 64)


class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Linear(64, 64)
        self.second = nn.Linear(64, 64)

    def forward(self, x):
        return self.second(torch.relu(self.first(x)))


def scenario_root_only():
    model = Pair()
    fully_shard(model)
    compiled = torch.compile(model)
    compiled(X).sum().backward()
