"""BL601 positives: each marked DDP wrap of a compiled module is split by DDPOptimizer into the
stated number of graphs (the runner counts the graphs its backend is handed; torch 2.13, gloo,
world size 1)."""
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

PROCESS_GROUP = "gloo"
X = torch.randn(8, 1024)


class Stack(nn.Module):
    """4 x 4 MiB: the first bucket (1 MiB cap) holds the last layer, the next 25 MiB the rest."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(1024, 1024) for _ in range(4))

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(1024, 512)
        self.act = nn.GELU()
        self.mid = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 512))
        self.norm = nn.LayerNorm(512)
        self.head = nn.Linear(512, 1024, bias=False)

    def forward(self, x):
        return self.head(self.norm(self.mid(self.act(self.embed(x)))))


def scenario_default_buckets():
    model = DDP(torch.compile(Stack()))  # expect: BL601 subgraphs=2
    model(X).sum().backward()


def scenario_small_buckets():
    model = DDP(torch.compile(Stack()), bucket_cap_mb=1)  # expect: BL601 subgraphs=4
    model(X).sum().backward()


def scenario_compiled_in_place():
    net = Tower()
    net.compile()
    model = DDP(net, bucket_cap_mb=1)  # expect: BL601 subgraphs=4
    model(X).sum().backward()


def scenario_bound_first():
    compiled = torch.compile(Tower())
    model = DDP(compiled, bucket_cap_mb=2, find_unused_parameters=False)  # expect: BL601 subgraphs=3
    model(X).sum().backward()


def scenario_moved_first():
    net = Stack().to("cpu")
    model = DDP(torch.compile(net), bucket_cap_mb=4)  # expect: BL601 subgraphs=4
    model(X).sum().backward()


def compile_with(**options):
    """A compile helper that makes wrappers, as training scripts write them (index/compilers.py)."""
    def wrap(module):
        return torch.compile(module, **options)
    return wrap


def scenario_compiled_through_a_helper():
    model = DDP(compile_with(dynamic=False)(Stack()), bucket_cap_mb=1)  # expect: BL601 subgraphs=4
    model(X).sum().backward()
