"""A small diffusion denoiser; ../train.py compiles `Denoiser` and trains it for a few steps."""
from .model import Denoiser

__all__ = ["Denoiser"]
