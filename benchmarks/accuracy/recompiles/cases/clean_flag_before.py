"""Clean: a global flag is set once, before the first call."""
import torch

USE_GELU = False


@torch.compile
def act(x):
    return torch.nn.functional.gelu(x) if USE_GELU else x.relu()


def configure():
    global USE_GELU
    USE_GELU = True


def main():
    configure()
    x = torch.randn(4)
    act(x)
    act(x)
