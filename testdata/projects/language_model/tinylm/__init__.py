"""A small language model package; ../train.py compiles `TinyLM` and trains it for a few steps."""
from .config import LMConfig
from .model import TinyLM

__all__ = ["LMConfig", "TinyLM"]
