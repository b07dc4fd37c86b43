"""BL506 positives: a module compiled with mode="reduce-overhead", called for inference with
gradients enabled and no backward anywhere after it: each call's outputs wait for a backward,
so CUDA graph trees record again instead of replaying ("Unable to hit fast path of CUDAGraphs
because of pending, uninvoked backwards"). Proven on a GPU by tests/test_gpu_cudagraphs.py
through the scenarios; on the CPU they must simply not break."""
import torch
from torch import nn

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


class Classifier(nn.Module):
    def __init__(self, dim: int = 32, classes: int = 10) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim), nn.GELU())
        self.head = nn.Linear(dim, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


classifier = torch.compile(Classifier().eval().to(DEVICE), mode="reduce-overhead")
CALLS = {"classifier": [(torch.randn(16, 32, device=DEVICE),) for _ in range(3)]}


def serve(batches: list[torch.Tensor]) -> list[int]:
    labels = []
    for batch in batches:
        logits = classifier(batch)  # expect: BL506
        labels.append(int(logits.argmax()))
    return labels


class Evaluator:
    def __init__(self) -> None:
        self.model = torch.compile(Classifier().to(DEVICE), mode="reduce-overhead")

    def accuracy(self, batches: list[torch.Tensor], targets: list[torch.Tensor]) -> float:
        hits = 0
        for batch, target in zip(batches, targets):
            scores = self.model(batch)  # expect: BL506
            hits += int((scores.argmax(dim=-1) == target).sum())
        return hits / sum(len(t) for t in targets)


def scenario_serve() -> None:
    serve([torch.randn(16, 32, device=DEVICE) for _ in range(12)])


def scenario_evaluate() -> None:
    batches = [torch.randn(16, 32, device=DEVICE) for _ in range(12)]
    Evaluator().accuracy(batches, [torch.randint(0, 10, (16,), device=DEVICE) for _ in batches])
