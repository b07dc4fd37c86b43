"""Clean: a script compiles in main and calls the model the same way every step."""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.drop = nn.Dropout(0.1)

    def forward(self, x, scale: float = 1.0):
        return self.drop(self.fc(x)) * scale


def main():
    model = Net()
    model = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        loss = model(torch.randn(4, 8), scale=0.5).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
