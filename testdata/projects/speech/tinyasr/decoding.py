"""Greedy CTC decoding, to text outside the graph."""
import torch


def collapse(ids):
    # unique_consecutive has a data-dependent output shape, but decoding runs after the compiled
    # forward, in eager code (train.py calls it): not a region, no break.
    return torch.unique_consecutive(ids)


@torch.compiler.disable
def to_text(ids, alphabet):
    # Excluded from compilation on purpose: .tolist() here is eager and costs no graph break.
    return "".join(alphabet[i] for i in ids.tolist() if i > 0)


def greedy_decode(log_probs, alphabet):
    best = log_probs.argmax(-1)
    return [to_text(collapse(row), alphabet) for row in best]
