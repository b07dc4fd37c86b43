"""BL505 negatives: the loop passes fixed shapes (a preallocated buffer and the position as a
tensor), or the callable is compiled without CUDA graphs (and with dynamic shapes, so that the
growing input does not recompile either)."""
import torch
from torch import nn

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
MAX_LEN = 16


class TinyDecoder(nn.Module):
    def __init__(self, vocab: int = 32, dim: int = 8) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.mix = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens: torch.Tensor, position: torch.Tensor) -> torch.Tensor:
        hidden = torch.tanh(self.mix(self.embed(tokens))).cumsum(dim=1)
        last = hidden.index_select(1, position).squeeze(1)  # the current position, a tensor
        return self.head(last)


decoder = torch.compile(TinyDecoder().eval().to(DEVICE), mode="reduce-overhead")
CALLS = {"decoder": [(torch.zeros(1, MAX_LEN, dtype=torch.long, device=DEVICE),
                      torch.tensor([3], device=DEVICE)) for _ in range(3)]}


@torch.no_grad()
def greedy_generate(prompt: torch.Tensor, new_tokens: int = 12) -> torch.Tensor:
    tokens = torch.zeros(1, MAX_LEN, dtype=torch.long, device=prompt.device)
    tokens[:, : prompt.shape[1]] = prompt
    for step in range(prompt.shape[1], prompt.shape[1] + new_tokens):
        torch.compiler.cudagraph_mark_step_begin()
        position = torch.tensor([step - 1], device=prompt.device)
        next_token = decoder(tokens, position).argmax(dim=-1)
        tokens[:, step] = next_token
    return tokens


@torch.compile(dynamic=True)  # no CUDA graphs: one graph for every length
def prefix_energy(frames: torch.Tensor) -> torch.Tensor:
    return frames.pow(2).mean(dim=0).softmax(dim=-1)


def streaming_energy(frames: torch.Tensor) -> list[torch.Tensor]:
    # From two frames on: a length of 1 would be specialised (and the next one recompile).
    return [prefix_energy(frames[:end]) for end in range(2, frames.shape[0] + 1)]


def scenario_generate() -> None:
    greedy_generate(torch.zeros(1, 4, dtype=torch.long, device=DEVICE))


def scenario_stream() -> None:
    streaming_energy(torch.randn(12, 8, device=DEVICE))
