"""Class-balanced CTC loss."""
import torch
import torch.nn.functional as F


def class_weights(targets, classes):
    # bincount's output length depends on the largest label unless minlength covers it, and
    # Dynamo breaks on it either way.
    counts = torch.bincount(targets.flatten(), minlength=classes)  # expect: BL104
    return counts.sum() / (counts.float() + 1.0)


def ctc_loss(log_probs, targets, input_lengths, target_lengths):
    return F.ctc_loss(log_probs.transpose(0, 1), targets, input_lengths, target_lengths, zero_infinity=True)  # expect: BL104
