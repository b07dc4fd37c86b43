"""BL204 positives: each marked call recompiles the compiled model (GLOBAL_STATE: grad_mode)."""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        return self.proj(x).relu()


model = torch.compile(Net())
classifier = torch.compile(Net())


def scenario_train_then_validate():
    x = torch.randn(8, 8)
    model(x).sum().backward()
    with torch.no_grad():
        model(x)  # expect: BL204


def scenario_train_then_evaluate():
    @torch.inference_mode()
    def evaluate(x):
        return classifier(x)  # expect: BL204

    x = torch.randn(8, 8)
    classifier(x).sum().backward()
    evaluate(x)
