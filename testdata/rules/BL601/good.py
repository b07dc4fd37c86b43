"""BL601 negatives: one bucket, so one graph (or DDP around a model that is not compiled);
nothing flagged, and the runner counts one graph per compiled frame."""
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

PROCESS_GROUP = "gloo"
X = torch.randn(8, 256)


class Small(nn.Module):
    """Under 1 MiB of parameters: DDP's first bucket holds all of them."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(256, 256)
        self.b = nn.Linear(256, 256)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


class Wide(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(256, 1024)
        self.b = nn.Linear(1024, 256)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def scenario_one_bucket():
    model = DDP(torch.compile(Small()))
    model(X).sum().backward()


def scenario_not_compiled():
    model = DDP(Wide())
    model(X).sum().backward()


def scenario_half_precision_not_sized():
    """A dtype change makes the sizes other than float32's: not predicted (one graph anyway)."""
    model = DDP(torch.compile(Small().to(torch.float64)))
    model(X.double()).sum().backward()
