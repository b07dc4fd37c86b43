"""BL110 negatives: torch equivalents, and C work done outside the region."""
import math
import struct
import zlib

import PIL  # Pillow: a dependency of matplotlib, in the test extra
import torch

BUCKET = zlib.crc32(b"attention.q_proj") % 4  # at import time, not traced


@torch.compile
def torch_equivalents(x):
    packed = struct.pack("i", 3)  # struct is traced
    return torch.special.expit(x) * math.sqrt(len(packed)) * (BUCKET + 1)


@torch.compile
def version_strings(x):
    # A `str` method of a value the package holds, not a C function: traced (torch 2.13).
    major = int(PIL.__version__.split(".")[0])
    parts = zlib.ZLIB_VERSION.split(".")
    return x * (major + len(parts))


@torch.compile
def logs_usage(x):
    torch._C._log_api_usage_once("breaklint.example")  # an in-graph query Dynamo folds away
    return x * 2
