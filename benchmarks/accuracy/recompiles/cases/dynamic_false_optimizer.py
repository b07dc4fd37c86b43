"""An optimizer (written the way timm's Kron is) compiles its update with dynamic=False and calls
it once per parameter: every distinct parameter shape is a compile of its own."""
import torch


def _update(grad, buf, lr: float):
    buf.mul_(0.9).add_(grad)
    return grad - lr * buf


class SGDish(torch.optim.Optimizer):
    def __init__(self, params, lr=0.1):
        super().__init__(params, {"lr": lr})
        self._update = torch.compile(_update, fullgraph=True, dynamic=False)

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                if "buf" not in state:
                    state["buf"] = torch.zeros_like(p)
                p.copy_(self._update(p.grad, state["buf"], group["lr"]))


def main():
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 2))
    opt = SGDish(model.parameters())
    for _ in range(2):
        model(torch.randn(3, 4)).sum().backward()
        opt.step()
