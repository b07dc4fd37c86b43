"""A trainer calls its compiled model with a Python flag that differs in train and eval steps."""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x, use_noise: bool = False):
        y = self.fc(x)
        return y + 0.1 if use_noise else y


class Trainer:
    def __init__(self):
        self.model = torch.compile(Net())

    def train_step(self, x):
        return self.model(x, use_noise=True).sum()

    def eval_step(self, x):
        return self.model(x, use_noise=False).sum()


def main():
    trainer = Trainer()
    x = torch.randn(4, 8)
    trainer.train_step(x)
    trainer.eval_step(x)
