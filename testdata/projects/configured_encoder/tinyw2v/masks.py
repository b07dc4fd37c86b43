"""Masks: the attention masks, one builder per attention implementation, and SpecAugment's time mask."""
import torch
from torch import nn


def additive_mask(mask, dtype):
    # [batch, time] -> [batch, 1, 1, time], 0 where attended and a large negative elsewhere.
    return (1.0 - mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min


def block_mask(mask, block=4):
    # The block-sparse layout: skipped entirely when no block is padded.
    padded = mask.shape[-1] % block
    if mask.all():  # possible: BL102
        return None
    return mask[:, None, :, None] * mask[:, None, None, :] if padded == 0 else mask[:, None, None, :]


class TimeMasking(nn.Module):
    """SpecAugment-style: zeroes random time steps. `mask_seed` (tests only; None by default)
    makes the masks reproducible."""

    def __init__(self, config):
        super().__init__()
        self.mask_prob = config.mask_time_prob
        self.mask_seed = config.mask_seed

    def forward(self, hidden_states):
        if self.mask_seed is not None:
            torch.manual_seed(self.mask_seed)  # possible: BL107
        keep = torch.rand(hidden_states.shape[:2], device=hidden_states.device) >= self.mask_prob
        return hidden_states * keep.unsqueeze(-1).to(hidden_states.dtype)
