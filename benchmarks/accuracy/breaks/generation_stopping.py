"""Stopping and beam bookkeeping in the style of transformers' generation utilities."""
import torch
from torch import nn


class EosStoppingCriteria(nn.Module):
    def __init__(self, eos_token_id=2):
        super().__init__()
        self.register_buffer("eos", torch.full((8,), float(eos_token_id)))

    def forward(self, scores):
        last = scores[:, -1]
        if torch.equal(last, self.eos):
            return scores.new_ones(scores.shape[0])
        return scores.new_zeros(scores.shape[0])


class ConvergenceCheck(nn.Module):
    def __init__(self, atol=1e-4):
        super().__init__()
        self.atol = atol

    def forward(self, hidden_states):
        previous = hidden_states * 0.999
        if torch.allclose(hidden_states, previous, atol=self.atol):
            return hidden_states
        return previous


def finished_any(hidden_states: torch.Tensor):
    chunks = hidden_states.chunk(2, dim=0)
    if any(chunk.max() > 3.0 for chunk in chunks):
        return hidden_states.clamp(max=3.0)
    return hidden_states


def best_beams(beam_scores: torch.Tensor):
    beams = [beam_scores[0], beam_scores[1], beam_scores[2]]
    ranked = sorted(beams, key=lambda beam: beam.sum())
    return torch.stack(ranked)


def crop_to_length(input_ids: torch.Tensor):
    cur_len = (input_ids[:, 0] > 0).sum()
    return input_ids[:, slice(0, cur_len)]


def has_tokens(logits: torch.Tensor):
    if logits.sum().is_nonzero():
        return logits.softmax(-1)
    return logits


stopping = torch.compile(EosStoppingCriteria())
converged = torch.compile(ConvergenceCheck())
finished_any = torch.compile(finished_any)
best_beams = torch.compile(best_beams)
crop_to_length = torch.compile(crop_to_length)
has_tokens = torch.compile(has_tokens)
