"""Clean: the batch dict has the same keys at every call, only the tensors change."""
import torch


@torch.compile
def encode(batch):
    return batch["input"] * batch["mask"]


def main():
    for _ in range(3):
        encode({"input": torch.randn(4, 8), "mask": torch.ones(4, 8)})
