"""A two-stage detector put together as torchvision's are: the frame (generalized.py) runs what
its subclasses build and pass up (faster.py); ../train.py compiles the subclasses."""
from .faster import FasterDetector, MaskDetector

__all__ = ["FasterDetector", "MaskDetector"]
