"""BL112 negatives: grad mode is traced (a guard), inference mode is decided outside."""
import torch


@torch.compile
def grad_aware(x):
    if torch.is_grad_enabled():
        return x * 2
    return x


def predict(x):
    if torch.is_inference_mode_enabled():
        return x
    return grad_aware(x)
