"""Example provider for `breaklint confirm examples/clean`."""
import torch

import breaklint
from model import MLP


@breaklint.example
def mlp():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model = MLP().to(device).eval()
    x = torch.randn(16, 64, device=device)
    return breaklint.Example(model, (x,), probe_args=(torch.randn(4, 64, device=device),))
