"""BL110 negatives: torch equivalents, and C work done outside the region."""
import math
import struct
import zlib

import torch

BUCKET = zlib.crc32(b"attention.q_proj") % 4  # at import time, not traced


@torch.compile
def torch_equivalents(x):
    packed = struct.pack("i", 3)  # struct is traced
    return torch.special.expit(x) * math.sqrt(len(packed)) * (BUCKET + 1)
