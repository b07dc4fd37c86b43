"""Mix augmentations: a base of their own between the augmentation base and each of them."""
from .base import AugmentationBase


class MixBase(AugmentationBase):
    def forward(self, x):
        return super().forward(x).contiguous()

    def apply_transform(self, x, params):
        raise NotImplementedError  # overridden by every mix


class MixUp(MixBase):
    def generate_parameters(self, x):
        return {"lam": x.mean()}

    def apply_transform(self, x, params):
        lam = params["lam"].item()  # expect: BL101
        return x * lam + x.flip(0) * (1 - lam)
