"""torch._dynamo APIs called from inside the compiled code."""
import torch
from torch import nn


def _host_only(hidden_states):
    return hidden_states.cpu() + 0


class Offload(nn.Module):
    def forward(self, hidden_states):
        hidden_states = torch._dynamo.disable(_host_only)(hidden_states)
        return hidden_states * 2


class DebugStep(nn.Module):
    def forward(self, hidden_states):
        torch._dynamo.step_unsupported()
        return hidden_states * 2


offload = torch.compile(Offload())
debug_step = torch.compile(DebugStep())
