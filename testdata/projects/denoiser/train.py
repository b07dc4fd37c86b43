"""Trains the denoiser for a few steps on noise; the one place that calls torch.compile."""
import torch
import torch.nn.functional as F

from tinydiff import Denoiser


def main(steps=2):
    torch.manual_seed(0)
    model = Denoiser()
    compiled = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(steps):
        clean = torch.randn(2, 3, 8, 8)
        timesteps = torch.randint(0, 1000, (2,))
        noise = torch.randn_like(clean)
        loss = F.mse_loss(compiled(clean + noise, timesteps), noise)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    main()
