"""BL502 negatives: the work stays on the GPU; the host copy happens after the compiled call;
factories without device= that only feed GPU ops (Inductor moves them to the GPU)."""
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self, dim: int = 8, classes: int = 8) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(features)).softmax(dim=-1)


classifier = torch.compile(Classifier().eval(), mode="reduce-overhead")


def predict(features: torch.Tensor) -> torch.Tensor:
    return classifier(features).cpu()  # after the compiled call: the graph stays whole


@torch.compile(mode="reduce-overhead")
def add_positions(tokens: torch.Tensor) -> torch.Tensor:
    positions = torch.arange(tokens.shape[-1])
    scale = torch.tensor([1.0, 0.5, 0.25, 0.125, 1.0, 0.5, 0.25, 0.125])
    return tokens * scale.to(tokens.device) + positions.to(tokens.device)


@torch.compile
def summarize(batch: torch.Tensor) -> torch.Tensor:
    return batch.mean(dim=0).cpu()  # no CUDA graphs in the default mode
