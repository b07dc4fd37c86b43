"""Detector: backbone, head, and (in eval) score filtering."""
import torch
from torch import nn

from .backbone import Backbone
from .heads import DetectionHead
from .postprocess import box_count, keep_confident, soft_scores
from .profiling import Stopwatch


class Detector(nn.Module):
    def __init__(self, classes=3, threshold=0.5):
        super().__init__()
        self.backbone = Backbone()
        self.head = DetectionHead(8, classes)
        self.threshold = threshold
        self.watch = Stopwatch()

    def forward(self, images):
        started = self.watch.start()
        features = self.backbone(images)
        logits, boxes = self.head(features)
        scores = logits.sigmoid().amax(-1)
        self.watch.stop("forward", started)
        if self.training:
            return logits, boxes, soft_scores(scores, self.threshold)
        box_count(boxes)
        best = scores.argmax(-1).tolist()  # expect: BL101
        # Detections of the whole batch at once, as (boxes, scores) of the images' boxes together.
        return keep_confident(boxes.flatten(0, 1), scores.flatten(), self.threshold), best
