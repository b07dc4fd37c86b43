"""Trains the detector briefly, then runs it in eval mode with an activation hook attached."""
import torch

from tinydet import ActivationRecorder, Detector


def main(steps=2):
    torch.manual_seed(0)
    model = Detector()
    compiled = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(steps):
        logits, boxes, scores = compiled(torch.randn(2, 3, 16, 16))
        (logits.mean() + boxes.mean() + scores.mean()).backward()
        optimizer.step()
        optimizer.zero_grad()
    recorder = ActivationRecorder()
    model.head.register_forward_hook(recorder)
    model.eval()  # expect: BL212
    with torch.no_grad():
        for _ in range(2):
            compiled(torch.randn(2, 3, 16, 16))  # expect: BL204


if __name__ == "__main__":
    main()
