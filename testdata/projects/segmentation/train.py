"""Trains SegNet for a few steps: the one place that calls torch.compile."""
import torch

from tinyseg import SegNet


def batch(size=2):
    image = torch.randn(size, 3, 16, 16)
    mask = torch.rand(size, 16, 16) > 0.5
    target = torch.randint(0, 4, (size, 16, 16))
    return image, mask, target


def main(steps=3):
    torch.manual_seed(0)
    model = SegNet()
    compiled = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(steps):
        image, mask, target = batch()
        scores, loss = compiled(image, mask, target)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        print(f"step {step}: loss {loss.item():.3f}")  # outside the compiled region: fine
    model.eval()
    with torch.no_grad():
        image, mask, _ = batch()
        compiled(image, mask)  # expect: BL204, BL211


if __name__ == "__main__":
    main()
