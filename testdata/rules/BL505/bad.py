"""BL505 positives: a callable compiled with mode="reduce-overhead" called in a loop with an input
that grows each step: CUDA graph trees record a new graph for every size ("CUDAGraph supports
dynamic shapes by recording a new graph for each distinct input size"). Proven on a GPU by
tests/test_gpu_cudagraphs.py through the scenarios; on the CPU they must simply not break."""
import torch
from torch import nn

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


class TinyDecoder(nn.Module):
    def __init__(self, vocab: int = 32, dim: int = 8) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.mix = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        hidden = torch.tanh(self.mix(self.embed(tokens)))
        return self.head(hidden.cumsum(dim=1))


decoder = torch.compile(TinyDecoder().eval().to(DEVICE), mode="reduce-overhead")
CALLS = {"decoder": [(torch.zeros(1, 4, dtype=torch.long, device=DEVICE),) for _ in range(3)]}


@torch.no_grad()
def greedy_generate(prompt: torch.Tensor, new_tokens: int = 12) -> torch.Tensor:
    tokens = prompt
    for _ in range(new_tokens):
        logits = decoder(tokens)  # expect: BL505, BL214
        next_token = logits[:, -1].argmax(dim=-1, keepdim=True)
        tokens = torch.cat([tokens, next_token], dim=1)
    return tokens


@torch.compile(mode="reduce-overhead")
def prefix_energy(frames: torch.Tensor) -> torch.Tensor:
    return frames.pow(2).mean(dim=0).softmax(dim=-1)


def streaming_energy(frames: torch.Tensor) -> list[torch.Tensor]:
    energies = []
    for end in range(1, frames.shape[0] + 1):
        energies.append(prefix_energy(frames[:end]))  # expect: BL505, BL214
    return energies


def scenario_generate() -> None:
    greedy_generate(torch.zeros(1, 4, dtype=torch.long, device=DEVICE))


def scenario_stream() -> None:
    streaming_energy(torch.randn(12, 8, device=DEVICE))
