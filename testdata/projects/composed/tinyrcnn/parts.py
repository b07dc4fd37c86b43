"""The parts a subclass builds and hands to the frame."""
import torch
from torch import nn


def clip_box(box, size):
    # type: (Tensor, int) -> Tensor
    width = int(box[2] - box[0])  # expect: BL101
    return box.clamp(min=0, max=size) * width


class Transform(nn.Module):
    def forward(self, images):
        return (images - images.mean()) / (images.std() + 1e-6)

    def postprocess(self, detections, sizes):
        return [clip_box(box, size) for box, size in zip(detections, sizes)]


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, images):
        return self.conv(images).relu()


class Proposals(nn.Module):
    def forward(self, features):
        scores = features.mean(dim=(1, 2, 3))
        keep = torch.where(scores > 0)[0]  # expect: BL104
        return features.flatten(1)[:, :4].abs() + keep.numel()


class BoxHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, features, boxes):
        return self.fc(boxes).cumsum(dim=1)


class MaskHeads(BoxHeads):
    def forward(self, features, boxes):
        boxes = super().forward(features, boxes)
        return boxes * features.amax().item()  # expect: BL101
