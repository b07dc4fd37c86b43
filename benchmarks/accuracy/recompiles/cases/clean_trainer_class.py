"""Clean: a trainer holds the compiled model on `self` and calls it the same way every step."""
import torch
from torch import nn


class Trainer:
    def __init__(self):
        self.net = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
        self.model = torch.compile(self.net)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def step(self, x):
        loss = self.model(x).pow(2).mean()
        loss.backward()
        self.opt.step()
        self.opt.zero_grad()
        return loss


def main():
    trainer = Trainer()
    for _ in range(4):
        trainer.step(torch.randn(4, 8))
