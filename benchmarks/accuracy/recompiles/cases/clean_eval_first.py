"""Clean: the model is put in eval mode and cast before its first compiled call."""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return self.drop(self.fc(x))


net = Net()
net.eval()
model = torch.compile(net)


def main():
    with torch.no_grad():
        for _ in range(3):
            model(torch.randn(4, 8))
