"""BL502 positives: on CUDA with mode="reduce-overhead", the copy to the CPU runs outside CUDA
graphs (graph partitioning) or makes Inductor skip them ("cpu device").
(Proven on a GPU by tests/test_gpu_cudagraphs.py; on the CPU they must simply not break.)"""
import torch
from torch import nn


class Classifier(nn.Module):
    """A serving head that hands probabilities back to the host from inside the compiled call."""

    def __init__(self, dim: int = 8, classes: int = 8) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        logits = self.head(self.norm(features))
        return logits.softmax(dim=-1).cpu()  # expect: BL502


classifier = torch.compile(Classifier().eval(), mode="reduce-overhead")


@torch.compile(mode="reduce-overhead")
def standardize(batch: torch.Tensor) -> torch.Tensor:
    center = batch.mean(dim=0).to("cpu")  # expect: BL502
    return batch - center.to(batch.device)
