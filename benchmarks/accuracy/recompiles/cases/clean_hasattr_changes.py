"""Clean (measured, torch 2.13): `hasattr` on a module turning true between calls does not recompile
(the compiled code keeps the traced answer)."""
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        if hasattr(self, "extra"):
            return x * 2
        return x


net = Net()
fast = torch.compile(net)


def main():
    x = torch.randn(4)
    fast(x)
    net.extra = 1
    fast(x)
