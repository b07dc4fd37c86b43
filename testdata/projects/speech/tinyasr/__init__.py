"""A small CTC speech recogniser; ../train.py compiles the model, features.py compiles itself."""
from .decoding import greedy_decode
from .features import log_spectrogram
from .model import ASRModel

__all__ = ["ASRModel", "greedy_decode", "log_spectrogram"]
