"""Greedy decoding with a static KV cache, the decode step compiled with mode="reduce-overhead":
a program for `breaklint confirm --ladder`, which runs it once per stage, unchanged.

    breaklint confirm --ladder --check benchmarks/gpu -- python benchmarks/gpu/decode_static_cache.py --report FILE
    ... decode_static_cache.py --with-grad   # the same loop without torch.no_grad(): BL506

A Llama-style decoder (RMSNorm, rotary embeddings, SDPA, SwiGLU; 8 layers of width 1024, fp16)
keeps its keys and values in buffers of the full length, written in place at the position, so
every decode step has the same shapes and CUDA graphs replay. The prompt is run eagerly; each
new token is one call of the compiled step. The program times those calls itself with CUDA
events and appends them to FILE as a JSON line (with the stage read from BREAKLINT_STAGE, only
to label it): the independent timing beside the ladder's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
DTYPE = torch.float16 if DEVICE == "cuda" else torch.float32


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        normed = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + self.eps)
        return normed.type_as(x) * self.weight


def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int, max_len: int, batch: int) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.qkv = nn.Linear(dim, (heads + 2 * kv_heads) * self.head_dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        shape = (batch, kv_heads, max_len, self.head_dim)
        self.register_buffer("k_cache", torch.zeros(shape), persistent=False)
        self.register_buffer("v_cache", torch.zeros(shape), persistent=False)

    def forward(self, x: torch.Tensor, pos: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                mask: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        q, k, v = self.qkv(x).split([self.heads * self.head_dim, self.kv_heads * self.head_dim,
                                     self.kv_heads * self.head_dim], dim=-1)
        q = rotate(q.view(b, t, self.heads, self.head_dim).transpose(1, 2), cos, sin)
        k = rotate(k.view(b, t, self.kv_heads, self.head_dim).transpose(1, 2), cos, sin)
        v = v.view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        # The cache keeps its shape, so CUDA graphs replay; what it holds is data, not a history
        # for autograd (detach: a no-op under no_grad, and grad mode must not chain the steps).
        self.k_cache.index_copy_(2, pos, k.detach())
        self.v_cache.index_copy_(2, pos, v.detach())
        keys = self.k_cache.repeat_interleave(self.heads // self.kv_heads, dim=1)
        values = self.v_cache.repeat_interleave(self.heads // self.kv_heads, dim=1)
        y = F.scaled_dot_product_attention(q, keys, values, attn_mask=mask)
        return self.out(y.transpose(1, 2).reshape(b, t, -1))


class Block(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int, hidden: int, max_len: int, batch: int) -> None:
        super().__init__()
        self.attn_norm, self.mlp_norm = RMSNorm(dim), RMSNorm(dim)
        self.attn = Attention(dim, heads, kv_heads, max_len, batch)
        self.gate_up = nn.Linear(dim, 2 * hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x: torch.Tensor, pos: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                mask: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.attn_norm(x), pos, cos, sin, mask)
        gate, up = self.gate_up(self.mlp_norm(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


class Decoder(nn.Module):
    def __init__(self, vocab: int = 32000, dim: int = 1024, layers: int = 8, heads: int = 16, kv_heads: int = 8,
                 hidden: int = 2816, max_len: int = 512, batch: int = 1) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim, heads, kv_heads, hidden, max_len, batch) for _ in range(layers))
        self.norm = RMSNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        inverse = 1.0 / (10000 ** (torch.arange(0, dim // heads, 2).float() / (dim // heads)))
        angles = torch.outer(torch.arange(max_len).float(), inverse)
        self.register_buffer("cos", torch.cat([angles.cos()] * 2, dim=-1), persistent=False)
        self.register_buffer("sin", torch.cat([angles.sin()] * 2, dim=-1), persistent=False)
        self.register_buffer("positions", torch.arange(max_len), persistent=False)

    def forward(self, tokens: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        mask = self.positions[None, :] <= pos[:, None]  # (tokens, max_len): causal, over the whole cache
        cos, sin = self.cos[pos].to(self.embed.weight.dtype), self.sin[pos].to(self.embed.weight.dtype)
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x, pos, cos, sin, mask)
        return self.head(self.norm(x))


def timed(step, tokens: torch.Tensor, pos: torch.Tensor, times: list) -> torch.Tensor:
    if not tokens.is_cuda:  # the program's own timing is for a GPU
        return step(tokens, pos)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    logits = step(tokens, pos)
    end.record()
    times.append((start, end))
    return logits


@torch.no_grad()
def generate(step, model: Decoder, prompt: torch.Tensor, new_tokens: int, times: list) -> list[int]:
    logits = model(prompt, torch.arange(prompt.shape[1], device=prompt.device))  # the prompt, eagerly
    token = logits[:, -1:].argmax(dim=-1)
    out = []
    for position in range(prompt.shape[1], prompt.shape[1] + new_tokens):
        logits = timed(step, token, torch.tensor([position], device=prompt.device), times)
        token = logits[:, -1:].argmax(dim=-1)
        out.append(int(token))
    return out


def generate_with_grad(step, model: Decoder, prompt: torch.Tensor, new_tokens: int) -> list[int]:
    """The same loop, forgetting torch.no_grad(): each step's logits wait for a backward."""
    with torch.no_grad():
        first = model(prompt, torch.arange(prompt.shape[1], device=prompt.device))
    token = first[:, -1:].argmax(dim=-1)
    out = []
    for position in range(prompt.shape[1], prompt.shape[1] + new_tokens):
        logits = step(token, torch.tensor([position], device=prompt.device))
        token = logits[:, -1:].argmax(dim=-1)
        out.append(int(token))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--report", type=Path, help="append this run's timing to FILE as a JSON line")
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--with-grad", action="store_true")
    parser.add_argument("--layers", type=int, default=8)
    options = parser.parse_args()
    torch.manual_seed(0)
    model = Decoder(layers=options.layers).to(DEVICE, DTYPE).eval()
    step = torch.compile(model, mode="reduce-overhead")
    prompt = torch.randint(0, 32000, (1, 16), device=DEVICE)
    if options.with_grad:
        generate_with_grad(step, model, prompt, options.new_tokens)
        return
    times: list = []
    generate(step, model, prompt, 8, times)  # warm-up: compiles, records
    times.clear()
    tokens = generate(step, model, prompt, options.new_tokens, times)
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    each = [start.elapsed_time(end) for start, end in times]
    report = {"stage": os.environ.get("BREAKLINT_STAGE", "plain"), "steps": len(each), "tokens": tokens[:8],
              "step_ms_total": sum(each), "step_ms_median": statistics.median(each) if each else None}
    print(json.dumps(report))
    if options.report:
        with options.report.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(report) + "\n")


if __name__ == "__main__":
    main()
