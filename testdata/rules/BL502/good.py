"""BL502 negatives: tensors made on the input's device."""
import torch


@torch.compile(mode="reduce-overhead")
def on_device(x):
    return x + torch.arange(x.shape[-1], device=x.device)


@torch.compile(mode="reduce-overhead")
def like_input(x):
    return x * torch.ones_like(x)
