"""Model settings, as a plain dataclass."""
from dataclasses import dataclass


@dataclass
class RevConfig:
    frame_features: int = 8
    hidden: int = 16
    depth: int = 2
    axial_positions: bool = True
    axial_shape: tuple = (4, 8)
    max_positions: int = 32
    dropout: float = 0.1
