"""Training entry point: compiles the model."""
import torch

from data import batches
from model import TinyGPT


def main() -> None:
    model = TinyGPT()
    compiled = torch.compile(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    tokens = torch.randint(0, 128, (4096,))
    for chunk in batches(tokens, seq=32, batch=8):
        loss = compiled(chunk[:, :-1], chunk[:, 1:])
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
