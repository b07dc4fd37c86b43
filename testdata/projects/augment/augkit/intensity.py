"""Intensity augmentations: each overrides the base's hooks."""
from .base import AugmentationBase
from .sampling import MeanSampler


class Brightness(AugmentationBase):
    def __init__(self):
        super().__init__()
        self.sampler = MeanSampler()

    def generate_parameters(self, x):
        return {"shift": self.sampler(x)}

    def apply_transform(self, x, params):
        return x + params["shift"]


class Contrast(AugmentationBase):
    def apply_transform(self, x, params):
        if x.std() > 0.5:  # expect: BL102
            return x * 0.5
        return x
