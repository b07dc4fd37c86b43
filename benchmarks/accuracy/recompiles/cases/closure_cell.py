"""A closure cell read by the compiled function is changed by its factory's setter."""
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
    x = torch.randn(4)
    fast_apply(x)
    set_scale(3)
    fast_apply(x)
