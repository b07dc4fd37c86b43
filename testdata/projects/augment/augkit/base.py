"""The base: `forward` runs the hooks a subclass overrides; its own hooks are defaults or
placeholders that no compiled instance runs."""
from torch import nn


class AugmentationBase(nn.Module):
    def __init__(self, p=1.0):
        super().__init__()
        self.p = p

    def forward(self, x):
        params = self.generate_parameters(x)
        return self.apply_func(x, params)

    def apply_func(self, x, params):
        return self.apply_transform(x, params)

    def generate_parameters(self, x):
        return {}

    def apply_transform(self, x, params):
        raise NotImplementedError  # overridden by every augmentation
