"""Turning dense predictions into detections."""
import torch


def keep_confident(boxes, scores, threshold):
    # Boolean-mask indexing: how many boxes survive depends on the data. The parameters carry no
    # annotation, so the linter cannot tell that `scores > threshold` is a tensor.
    return boxes[scores > threshold], scores[scores > threshold]  # miss: BL104 (unannotated helper parameters: values are not followed into callees)


def soft_scores(scores, threshold):
    # The same idea with a static shape: traced, no break.
    return torch.where(scores > threshold, scores, torch.zeros_like(scores))


def box_count(boxes):
    assert boxes.shape[-1] == 4, "boxes are (x1, y1, x2, y2)"  # a shape test: no break
    return boxes.shape[0]
