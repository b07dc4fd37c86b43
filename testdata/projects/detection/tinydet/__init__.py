"""A small single-stage detector; ../train.py compiles it and hooks its backbone."""
from .model import Detector
from .hooks import ActivationRecorder

__all__ = ["ActivationRecorder", "Detector"]
