"""Serving transformers' GPT-2 small (random weights, fp16) with torch.compile, as a user would
write it: a program for observe mode, `breaklint confirm -- python benchmarks/gpu/serve_gpt2.py`.

Prompts of two lengths: the second length recompiles the forward (Dynamo's automatic dynamic
shapes), which observe mode reports at the model's `forward`, in transformers' own file. The
program's output is the same with and without breaklint around it (run_real.sh compares them).
"""

from __future__ import annotations

import torch
from transformers import GPT2Config, GPT2LMHeadModel


def main() -> None:
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = GPT2LMHeadModel(GPT2Config()).to(device, torch.float16 if device == "cuda" else torch.float32).eval()
    served = torch.compile(model)
    with torch.no_grad():
        for length in (64, 64, 96, 96):
            tokens = torch.randint(0, 50257, (1, length), device=device)
            logits = served(input_ids=tokens, use_cache=False).logits
            print(f"prompt of {length} tokens: logits {tuple(logits.shape)}", flush=True)
    print("served 4 prompts")


if __name__ == "__main__":
    main()
