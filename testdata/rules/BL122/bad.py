"""BL122 positives: each marked line breaks under real Dynamo (the frame is skipped)."""
import torch


@torch.compile
def accumulate(chunks, x):
    for chunk in chunks:  # expect: BL122
        x = x + chunk
    return x


@torch.compile
def apply_named(named, x):
    for name, weight in named:  # expect: BL122
        x = x * weight if name.startswith("scale") else x + weight
    return x


@torch.compile
def apply_items(weights, x):
    for name, weight in weights:  # expect: BL122
        x = x + weight
    return x


def scenario_iterator():
    accumulate(iter([1.0, 2.0]), torch.randn(8, 8))


def scenario_zip():
    apply_named(zip(["scale", "shift"], [torch.ones(8), torch.zeros(8)]), torch.randn(8, 8))


def scenario_items():
    weights = {"bias": torch.ones(8)}
    apply_items(weights.items(), torch.randn(8, 8))


# The runner's own calls pass containers (no break): the iterators come from the scenarios.
CALLS = {"accumulate": [([1.0, 2.0], torch.randn(8, 8)) for _ in range(3)],
         "apply_named": [([("scale", torch.ones(8))], torch.randn(8, 8)) for _ in range(3)],
         "apply_items": [([("bias", torch.ones(8))], torch.randn(8, 8)) for _ in range(3)]}
