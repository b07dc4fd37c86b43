from .config import RevConfig
from .model import RevFormer

__all__ = ["RevConfig", "RevFormer"]
