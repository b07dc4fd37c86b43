"""BL604 positives: a compiled module calls submodules that fully_shard (FSDP2) wrapped; their
hooks are Dynamo-disabled, so each marked call breaks the graph, and in a loop Dynamo skips the
whole forward (torch 2.13, gloo, world size 1)."""
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
        h = torch.relu(self.first(x))  # expect: BL604
        return self.second(h)  # expect: BL604


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(64, 64) for _ in range(2))

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))  # expect: BL604
        return x


def scenario_each_layer_sharded():
    model = Pair()
    fully_shard(model.first)
    fully_shard(model.second)
    fully_shard(model)
    compiled = torch.compile(model)
    compiled(X).sum().backward()


def scenario_layers_in_a_loop():
    model = Stack()
    for layer in model.layers:
        fully_shard(layer)
    fully_shard(model)
    model.compile()
    model(X).sum().backward()


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(64, 64)
        self.head = nn.Linear(64, 64)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return self.head(h)  # expect: BL604


def maybe_compile(module, enabled=True):
    """A compile helper, as training scripts write them (index/compilers.py)."""
    return torch.compile(module) if enabled else module


def scenario_compiled_through_a_helper():
    model = Head()
    fully_shard(model.head)
    fully_shard(model)
    compiled = maybe_compile(model)
    compiled(X).sum().backward()
