"""Autoregressive decoding: the token tensor grows by concatenation each step."""
import torch
from torch import nn


class Lm(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(16, 8)
        self.out = nn.Linear(8, 16)

    def forward(self, ids):
        return self.out(self.emb(ids))


lm = torch.compile(Lm())


def main():
    tokens = torch.zeros(1, 2, dtype=torch.long)
    with torch.no_grad():
        for _ in range(5):
            logits = lm(tokens)
            tokens = torch.cat([tokens, logits[:, -1:].argmax(-1)], dim=1)
