"""Real third-party models with random weights, as `breaklint confirm` targets (a CUDA GPU, timm
and transformers needed; nothing is downloaded):

    breaklint confirm benchmarks/gpu/real_models.py --check benchmarks/gpu

`agreement.py` runs confirm's ladder of these models beside an independent CUDA-events timer in
one process (benchmarks/gpu/run_real.sh models).
"""

from __future__ import annotations

import torch

import breaklint

DEVICE = "cuda"


def _gpt2(layers: int = 12, width: int = 768, heads: int = 12, vocab: int = 50257):
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    with torch.device(DEVICE):
        return GPT2LMHeadModel(GPT2Config(n_layer=layers, n_embd=width, n_head=heads, vocab_size=vocab))


@breaklint.example
def resnet50_bs1():
    """timm resnet50, batch 1, fp16: served."""
    import timm

    torch.manual_seed(0)
    model = timm.create_model("resnet50", pretrained=False).to(DEVICE, torch.float16).eval()
    image = torch.randn(1, 3, 224, 224, device=DEVICE, dtype=torch.float16)
    return breaklint.Example(model, (image,), probe=False)


@breaklint.example
def gpt2_prefill():
    """transformers GPT-2 small, one prompt of 64 tokens, fp16; the probe sends 32 tokens."""
    model = _gpt2().to(torch.float16).eval()
    tokens = torch.randint(0, 50257, (1, 64), device=DEVICE)
    return breaklint.Example(model, kwargs={"input_ids": tokens, "use_cache": False},
                             probe_kwargs={"input_ids": tokens[:, :32], "use_cache": False})


@breaklint.example
def llama_8_layers():
    """transformers Llama, 8 layers of width 1024 (GQA 16/8 heads), 128 tokens, fp16."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8, num_attention_heads=16,
                         num_key_value_heads=8, vocab_size=32000, max_position_embeddings=2048)
    with torch.device(DEVICE):
        model = LlamaForCausalLM(config).to(torch.float16).eval()
    tokens = torch.randint(0, 32000, (1, 128), device=DEVICE)
    return breaklint.Example(model, kwargs={"input_ids": tokens, "use_cache": False}, probe=False)


@breaklint.example
def gpt2_training_step():
    """A 4-layer GPT-2 (width 512), batch 8 of 128 tokens: forward, loss, backward, AdamW step."""
    model = _gpt2(layers=4, width=512, heads=8, vocab=8192).train()
    tokens = torch.randint(0, 8192, (8, 128), device=DEVICE)
    return breaklint.Example(model, kwargs={"input_ids": tokens, "labels": tokens}, usage="training",
                             optimizer=lambda parameters: torch.optim.AdamW(parameters, lr=1e-4), probe=False)
