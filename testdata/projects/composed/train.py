"""Compiles both detectors and runs them in eval mode."""
import torch

from tinyrcnn import FasterDetector, MaskDetector


def main():
    torch.manual_seed(0)
    images = torch.randn(2, 3, 8, 8)
    for model in (FasterDetector(), MaskDetector()):
        model.eval()
        with torch.no_grad():
            torch.compile(model)(images)


if __name__ == "__main__":
    main()
