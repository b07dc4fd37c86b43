"""Trains TinyLM on random tokens; the model is compiled here and nowhere else."""
import logging

import torch

from tinylm import LMConfig, TinyLM
from tinylm.sampling import normalize, scale_logits

log = logging.getLogger("train")


def main(steps=3):
    torch.manual_seed(0)
    config = LMConfig()
    model = TinyLM(config)
    model = torch.compile(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(steps):
        tokens = torch.randint(0, config.vocab, (2, 12))
        loss = model(tokens, labels=tokens)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        log.info("step %d loss %.3f", step, loss.item())  # the training loop is not compiled
    logits = torch.randn(1, 12, config.vocab)
    # Another module's compiled helpers: a temperature that changes recompiles the one that reads
    # it (once: a float is dynamic after that); the same `dim` at every call does not.
    for temperature in (1.0, 0.7):
        normalize(scale_logits(logits, temperature), -1)  # expect: BL211


if __name__ == "__main__":
    main()
