"""A wav2vec2-style encoder built from a configuration object; ../train.py compiles it."""
from .configuration import TinyW2VConfig
from .modeling import TinyW2VModel

__all__ = ["TinyW2VConfig", "TinyW2VModel"]
