"""A small segmentation package: the model is compiled in ../train.py, its breaks live here."""
from .model import SegNet

__all__ = ["SegNet"]
