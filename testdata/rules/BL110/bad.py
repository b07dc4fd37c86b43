"""BL110 positives: each marked line must graph-break under real Dynamo.

SciPy, OpenCV and Pillow are not test dependencies; the standard library's C modules break the
same way (see the rule's docs for the SciPy and Pillow runs)."""
import binascii
import hashlib
import zlib

import torch
from torch import nn


@torch.compile
def bucket_by_name(x):
    bucket = zlib.crc32(b"attention.q_proj") % 4  # expect: BL110
    return x * (bucket + 1)


@torch.compile
def fingerprint(x):
    digest = hashlib.sha256(b"weights")  # expect: BL110
    return x + 1


class Tagged(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        tag = binascii.hexlify(b"tag")  # expect: BL110
        return self.proj(x)


tagged = torch.compile(Tagged())


@torch.compile
def cudnn_aware(x):
    if torch._C._get_cudnn_enabled():  # expect: BL110
        return x * 2
    return x
