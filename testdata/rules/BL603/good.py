"""BL603 negatives: DDP around the compiled module (or the module compiled in place before the
wrap): DDP's forward runs eagerly, the inner forward compiles whole; no break, nothing flagged."""
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

PROCESS_GROUP = "gloo"
X = torch.randn(8, 64)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(64, 64)

    def forward(self, x):
        return torch.relu(self.a(x))


def scenario_compiled_then_wrapped():
    model = DistributedDataParallel(torch.compile(Net()))
    model(X).sum().backward()


def scenario_compiled_in_place():
    net = Net()
    net.compile()
    model = DistributedDataParallel(net)
    model(X).sum().backward()


def keep_eager(module, enabled=True):
    """Named like a compile helper, called like one: it never compiles."""
    return module


def scenario_a_helper_that_does_not_compile():
    model = keep_eager(DistributedDataParallel(Net()))
    model(X).sum().backward()
