"""A config dict entry read by the compiled code is changed between calls."""
import torch

CONFIG = {"clip": 1}


@torch.compile
def clip(x):
    return x.clamp(-CONFIG["clip"], CONFIG["clip"])


def main():
    x = torch.randn(4, 8)
    clip(x)
    CONFIG["clip"] = 2
    clip(x)
