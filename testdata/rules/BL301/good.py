"""BL301 negatives: the forward is compiled, autograd runs outside it."""
import torch
from torch import nn

BACKEND = "aot_eager"  # judged at the AOTAutograd stage (forward and backward graphs)

WEIGHT = nn.Parameter(torch.ones(8))


@torch.compile
def loss_fn(x):
    return (x * WEIGHT).sum()


def train_step(x):
    loss = loss_fn(x)
    loss.backward()
    return loss.detach()


@torch.compile
def tensor_hook(x):
    y = x * WEIGHT
    y.register_hook(lambda grad: grad * 0.5)  # tensor hooks are traced
    return y.sum()
