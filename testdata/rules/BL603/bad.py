"""BL603 positives: each marked call of a compiled DDP wrapper makes Dynamo trace DDP's own
forward, which breaks (torch 2.13, gloo, world size 1)."""
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

PROCESS_GROUP = "gloo"
X = torch.randn(8, 64)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(64, 64)
        self.b = nn.Linear(64, 64)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def scenario_wrapped_then_compiled():
    model = torch.compile(DistributedDataParallel(Net()))
    loss = model(X).sum()  # expect: BL603
    loss.backward()


def scenario_bound_then_compiled():
    ddp = DistributedDataParallel(Net())
    model = torch.compile(ddp)
    model(X).sum().backward()  # expect: BL603


def maybe_compile(module, enabled=True):
    """A compile helper, as training scripts write them (index/compilers.py)."""
    return torch.compile(module) if enabled else module


def scenario_compiled_through_a_helper():
    model = maybe_compile(DistributedDataParallel(Net()))
    model(X).sum().backward()  # expect: BL603
