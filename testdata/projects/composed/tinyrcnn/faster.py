"""The detectors: each builds its parts and passes them up, as torchvision's FasterRCNN does."""
from .generalized import GeneralizedDetector
from .parts import Backbone, BoxHeads, MaskHeads, Proposals, Transform


class FasterDetector(GeneralizedDetector):
    def __init__(self, heads=None):
        proposals = Proposals()
        if heads is None:
            heads = BoxHeads()
        super().__init__(Backbone(), proposals, heads, Transform())


class MaskDetector(FasterDetector):
    def __init__(self):
        super().__init__(heads=MaskHeads())
