"""Compiles the package's tensor utilities through the script's own helpers (a wrapper and a
`functools.partial` of torch.compile), and runs the steps that tinyops/steps.py compiles with
its helpers."""
import functools

import torch

import tinyops


def maybe_compile(fn, enabled=True):
    return torch.compile(fn) if enabled else fn


dynamic_compile = functools.partial(torch.compile, dynamic=True)

compiled_rows = maybe_compile(tinyops.active_rows)
compiled_report = dynamic_compile(tinyops.report)
compiled_centered = maybe_compile(tinyops.centered)


def main():
    torch.manual_seed(0)
    x = torch.randn(16)
    compiled_rows(x)
    compiled_report(x)
    compiled_centered(x)
    tinyops.total(x)
    tinyops.shifted(x)
    tinyops.as_list(x)
    tinyops.distinct(x)
    tinyops.eager_total(x)
    tinyops.rounded(x)


if __name__ == "__main__":
    main()
