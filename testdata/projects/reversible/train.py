"""Trains RevFormer on random frames for a few steps, then encodes one batch in eval mode."""
import torch

from revformer import RevConfig, RevFormer


def main(steps=2):
    torch.manual_seed(0)
    config = RevConfig()
    model = RevFormer(config)
    compiled = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    for _ in range(steps):
        frames = torch.randn(2, 24, config.frame_features)
        loss = compiled(frames).pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    with torch.no_grad():
        return compiled(torch.randn(2, 20, config.frame_features))  # expect: BL204


if __name__ == "__main__":
    main()
