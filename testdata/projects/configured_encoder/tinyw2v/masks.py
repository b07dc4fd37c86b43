"""Attention masks, one builder per attention implementation."""
import torch


def additive_mask(mask, dtype):
    # [batch, time] -> [batch, 1, 1, time], 0 where attended and a large negative elsewhere.
    return (1.0 - mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min


def block_mask(mask, block=4):
    # The block-sparse layout: skipped entirely when no block is padded.
    padded = mask.shape[-1] % block
    if mask.all():  # possible: BL102
        return None
    return mask[:, None, :, None] * mask[:, None, None, :] if padded == 0 else mask[:, None, None, :]
