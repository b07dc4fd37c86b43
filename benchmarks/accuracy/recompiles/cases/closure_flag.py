"""A closure flag read by the compiled function is flipped through `nonlocal` by a setter that
the same factory returns."""
import torch


def build():
    use_gelu = False

    def act(x):
        return torch.nn.functional.gelu(x) if use_gelu else torch.relu(x)

    def enable_gelu():
        nonlocal use_gelu
        use_gelu = True

    return act, enable_gelu


act, enable_gelu = build()
fast_act = torch.compile(act)


def main():
    x = torch.randn(8)
    fast_act(x)
    enable_gelu()
    fast_act(x)
