"""Reversible residual blocks (RevNet): activations are not stored, they are recomputed."""
import torch
from torch import nn
from torch.autograd import Function


class FeedForward(nn.Module):
    def __init__(self, hidden, dropout):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(hidden), nn.Linear(hidden, hidden), nn.GELU(), nn.Dropout(dropout))

    def forward(self, x):
        return self.net(x)


class ReversibleBlock(nn.Module):
    """y1 = x1 + f(x2), y2 = x2 + g(y1); the dropout masks must be the same when backward
    recomputes f and g, so each one seeds the RNG with a seed of its own."""

    def __init__(self, config, index):
        super().__init__()
        self.f = FeedForward(config.hidden, config.dropout)
        self.g = FeedForward(config.hidden, config.dropout)
        self.f_seed = 2 * index
        self.g_seed = 2 * index + 1

    def _seed_f(self):
        torch.manual_seed(self.f_seed)  # expect: BL107

    def forward(self, x1, x2):
        if self.training:
            self._seed_f()
        y1 = x1 + self.f(x2)
        if self.training:
            torch.manual_seed(self.g_seed)  # expect: BL107
        y2 = x2 + self.g(y1)
        return y1, y2


class ReversibleFunction(Function):
    @staticmethod
    def forward(ctx, hidden_states, blocks, head_mask):
        x1, x2 = torch.chunk(hidden_states, 2, dim=-1)
        for block, mask in zip(blocks, head_mask):
            x1, x2 = block(x1 * mask, x2)
        ctx.blocks = blocks
        output = torch.cat([x1, x2], dim=-1)
        ctx.save_for_backward(output.detach())
        return output

    @staticmethod
    def backward(ctx, grad_output):
        # Every block is volume-preserving: the gradient goes straight through.
        return grad_output, None, None
