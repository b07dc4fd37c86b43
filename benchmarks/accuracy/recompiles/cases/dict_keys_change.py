"""A batch dict whose keys differ between calls: Dynamo guards on its length and keys."""
import torch


@torch.compile
def encode(batch):
    out = batch["input"] * 2
    if "mask" in batch:
        out = out * batch["mask"]
    return out


def main():
    x = torch.randn(4, 8)
    encode({"input": x})
    encode({"input": x, "mask": torch.ones(4, 8)})
