from dataclasses import dataclass


@dataclass
class LMConfig:
    vocab: int = 64
    dim: int = 16
    heads: int = 2
    layers: int = 2
    pad_id: int = 0
    buckets: tuple = (1.0, 2.0, 4.0, 8.0)
    use_rnn_encoder: bool = True
