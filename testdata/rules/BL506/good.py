"""BL506 negatives: inference under torch.no_grad() / torch.inference_mode(), and a training
loop whose backward consumes each call's outputs: CUDA graph trees replay."""
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
trained = torch.compile(Classifier().to(DEVICE), mode="reduce-overhead")
CALLS = {"classifier": [(torch.randn(16, 32, device=DEVICE),) for _ in range(3)],
         "trained": [(torch.randn(16, 32, device=DEVICE),) for _ in range(3)]}


@torch.no_grad()
def serve(batches: list[torch.Tensor]) -> list[int]:
    labels = []
    for batch in batches:
        logits = classifier(batch)
        labels.append(int(logits.argmax()))
    return labels


def serve_in_inference_mode(batches: list[torch.Tensor]) -> list[int]:
    labels = []
    with torch.inference_mode():
        for batch in batches:
            labels.append(int(classifier(batch).argmax()))
    return labels


def train(batches: list[torch.Tensor], targets: list[torch.Tensor]) -> None:
    optimizer = torch.optim.SGD(trained.parameters(), lr=0.01)
    for batch, target in zip(batches, targets):
        optimizer.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(trained(batch), target)
        loss.backward()
        optimizer.step()


def scenario_serve() -> None:
    serve([torch.randn(16, 32, device=DEVICE) for _ in range(12)])


def scenario_serve_in_inference_mode() -> None:
    # A scenario of its own: after no_grad, inference mode is another global state (a recompile).
    serve_in_inference_mode([torch.randn(16, 32, device=DEVICE) for _ in range(12)])


def scenario_train() -> None:
    batches = [torch.randn(16, 32, device=DEVICE) for _ in range(12)]
    train(batches, [torch.randint(0, 10, (16,), device=DEVICE) for _ in batches])
