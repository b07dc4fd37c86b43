"""The frame: it stores the parts it is given and runs them; it builds none itself."""
from torch import nn


class GeneralizedDetector(nn.Module):
    def __init__(self, backbone, proposals, heads, transform):
        super().__init__()
        self.backbone = backbone
        self.proposals = proposals
        self.heads = heads
        self.transform = transform

    def forward(self, images):
        images = self.transform(images)
        features = self.backbone(images)
        boxes = self.proposals(features)
        detections = self.heads(features, boxes)
        return self.transform.postprocess(detections, [images.shape[-1]] * images.shape[0])
