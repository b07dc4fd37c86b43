"""TinyLM: embeddings, an optional LSTM encoder, a ModuleList of blocks and a tied output layer."""
import logging

import torch
from torch import nn
import torch.nn.functional as F

from .config import LMConfig
from .layers import Block, RecurrentEncoder, RMSNorm
from .positions import relative_buckets, sinusoid

logger = logging.getLogger(__name__)


class TinyLM(nn.Module):
    def __init__(self, config: LMConfig):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab, config.dim)
        self.encoder = RecurrentEncoder(config.dim) if config.use_rnn_encoder else nn.Identity()
        self.bucket_bias = nn.Embedding(len(config.buckets) + 1, config.heads)
        self.layers = nn.ModuleList([Block(config.dim, config.heads) for _ in range(config.layers)])
        self.norm = RMSNorm(config.dim)

    def position_bias(self, length):
        buckets = relative_buckets(length, self.config.buckets)
        return self.bucket_bias(buckets).permute(2, 0, 1)[None]

    def forward(self, tokens, labels=None):
        padding = tokens == self.config.pad_id
        x = self.embed(tokens) + sinusoid(tokens.shape[1], self.config.dim)
        x = self.encoder(x)
        bias = self.position_bias(tokens.shape[1])
        for layer in self.layers:
            x = layer(x, bias, padding)
        logits = self.norm(x) @ self.embed.weight.t()
        if labels is None:
            return logits
        loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=self.config.pad_id)
        logger.info("train loss %s", loss.detach())  # expect: BL106
        if not torch.compiler.is_compiling():
            logger.debug("tokens %s", tokens.shape)  # skipped while compiling: no break
        return loss
