"""Clean: a closure cell read by the compiled function is never rebound (the setter is not called
between the calls)."""
import torch


def make():
    scale = 2

    def apply(x):
        return x * scale

    def set_scale(value):
        nonlocal scale
        scale = value

    return apply, set_scale


apply, set_scale = make()
fast_apply = torch.compile(apply)


def main():
    set_scale(3)
    x = torch.randn(4)
    fast_apply(x)
    fast_apply(x)
