"""Image augmentations put together as kornia's are: a base class whose `forward` calls methods
each subclass overrides (base.py), subclasses in other files (intensity.py, mix.py), and a
container that runs the instances it is given (container.py); ../train.py compiles them."""
from .container import Pipeline
from .intensity import Brightness, Contrast
from .mix import MixUp

__all__ = ["Brightness", "Contrast", "MixUp", "Pipeline"]
