"""BL301 positives: each marked line must graph-break when compiled with aot_eager."""
import torch
from torch import nn

BACKEND = "aot_eager"  # judged at the AOTAutograd stage (forward and backward graphs)

WEIGHT = nn.Parameter(torch.ones(8))


@torch.compile
def train_step(x):
    loss = (x * WEIGHT).sum()
    loss.backward()  # expect: BL301
    return loss.detach()


@torch.compile
def gradient_penalty(x):
    score = (x * WEIGHT).pow(2).sum()
    (grad,) = torch.autograd.grad(score, WEIGHT, create_graph=True)  # expect: BL301
    return score + grad.norm()


@torch.compile
def functional_backward(x):
    loss = (x * WEIGHT).sum()
    torch.autograd.backward(loss)  # expect: BL301
    return loss.detach()


class Probe(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        hidden = self.proj(x)
        hidden.retain_grad()  # expect: BL301
        return hidden.relu()


probe = torch.compile(Probe())
