"""Example providers for `breaklint confirm examples/tinygpt` (runs on a GPU when there is one)."""
import torch

from model import TinyGPT

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def tiny_gpt_inference():
    torch.manual_seed(0)
    model = TinyGPT().to(DEVICE).eval()
    tokens = torch.randint(0, 128, (8, 32), device=DEVICE)
    # The probe: another batch and sequence length, as serving traffic would send.
    return model, (tokens,), (tokens[:4, :16],)


def tiny_gpt_training_loss():
    torch.manual_seed(0)
    model = TinyGPT().to(DEVICE)
    tokens = torch.randint(0, 128, (8, 33), device=DEVICE)
    return model, (tokens[:, :-1], tokens[:, 1:])
