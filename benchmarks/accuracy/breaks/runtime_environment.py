"""Process, thread and backend state touched from forward, as serving and attention code does."""
import os
import threading
import unittest

import torch
from torch import nn

_KV_CACHE_LOCK = threading.Lock()


class CachedAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 24)

    def forward(self, hidden_states):
        q, k, v = self.qkv(hidden_states).chunk(3, dim=-1)
        with _KV_CACHE_LOCK:
            scores = q @ k.transpose(-1, -2)
        return scores.softmax(-1) @ v


class TokenizerParallelism(nn.Module):
    def forward(self, x):
        os.environ["TOKENIZERS_PARALLELISM"] = "false"
        return x * 2


class BackendAwareConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        if torch._C._get_cudnn_enabled():
            return self.proj(x)
        return self.proj(x.contiguous())


class WorkerTagged(nn.Module):
    def forward(self, x):
        worker = threading.get_ident() % 2
        return x + worker


class ShapeChecks(unittest.TestCase):
    def run_checked(self, x):
        self.assertEqual(x.shape[-1], 8)
        return x * 2


_CHECKS = ShapeChecks()


@torch.compile
def checked_forward(x):
    return _CHECKS.run_checked(x)


attention = torch.compile(CachedAttention())
tokenizer_env = torch.compile(TokenizerParallelism())
backend_conv = torch.compile(BackendAwareConv())
worker_tagged = torch.compile(WorkerTagged())
