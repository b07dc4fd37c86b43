"""BL202 positives: each marked line sits in a forward that recompiles once per instance."""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim, layer_idx):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.layer_idx = layer_idx

    def forward(self, x):
        scale = 1.0 / (self.layer_idx + 1)  # expect: BL202
        return self.proj(x) * scale


blocks = [torch.compile(Block(8, layer_idx=i)) for i in range(4)]


class Expert(nn.Module):
    def __init__(self, expert_id: int):
        super().__init__()
        self.expert_id = expert_id
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        return self.proj(x).roll(self.expert_id, dims=0)  # expect: BL202


experts = [Expert(e) for e in range(3)]
for expert in experts:
    expert.compile()


def scenario_run_every_layer():
    for block in blocks:
        block(torch.randn(8, 8))


def scenario_run_every_expert():
    for expert in experts:
        expert(torch.randn(8, 8))
