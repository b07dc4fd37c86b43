"""Turning dense predictions into detections."""
import torch


def keep_confident(boxes, scores, threshold):
    # Boolean-mask indexing: how many boxes survive depends on the data. The parameters carry no
    # annotation: that `scores > threshold` is a tensor comes from what Detector.forward passes.
    return boxes[scores > threshold], scores[scores > threshold]  # expect: BL104


def soft_scores(scores, threshold):
    # The same idea with a static shape: traced, no break.
    return torch.where(scores > threshold, scores, torch.zeros_like(scores))


def box_count(boxes):
    assert boxes.shape[-1] == 4, "boxes are (x1, y1, x2, y2)"  # a shape test: no break
    return boxes.shape[0]
