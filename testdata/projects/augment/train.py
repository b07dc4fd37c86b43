"""Compiles a pipeline of two augmentations and a mix, and runs them."""
import torch

from augkit import Brightness, Contrast, MixUp, Pipeline


def main():
    torch.manual_seed(0)
    images = torch.randn(4, 3, 8, 8)
    pipeline = torch.compile(Pipeline(Brightness(), Contrast()))
    pipeline(images)
    mix = torch.compile(MixUp())
    mix(images)


if __name__ == "__main__":
    main()
