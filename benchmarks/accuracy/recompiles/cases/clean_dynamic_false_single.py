"""Clean: dynamic=False on a callable that is called with one shape only (no loop over sizes or
parameters)."""
import torch


def project(x):
    return x @ x.T


fast_project = torch.compile(project, dynamic=False)


def main():
    x = torch.randn(4, 4)
    for _ in range(3):
        fast_project(x)
