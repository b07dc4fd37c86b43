"""Data loading: runs eagerly, so nothing here is reported."""
import torch


def batches(tokens: torch.Tensor, seq: int, batch: int):
    steps = int(tokens.numel()) // (seq * batch)
    for step in range(steps):
        chunk = tokens[step * seq * batch:(step + 1) * seq * batch].view(batch, seq)
        if chunk.max().item() >= 128:  # eager code: .item() is fine here
            continue
        yield chunk
