"""Clean (measured, torch 2.13): an environment variable read in the region and changed between
calls does not recompile (the compiled code keeps the traced answer)."""
import os

import torch


@torch.compile
def scaled(x):
    if os.environ.get("BREAKLINT_CASE_MODE") == "fast":
        return x * 2
    return x


def main():
    x = torch.randn(4)
    scaled(x)
    os.environ["BREAKLINT_CASE_MODE"] = "fast"
    scaled(x)
