"""BL122 negatives: containers passed in, iterators made inside."""
import torch


@torch.compile
def accumulate(chunks, x):
    for chunk in chunks:
        x = x + chunk
    return x


@torch.compile
def apply_named(names, weights, x):
    for name, weight in zip(names, weights):  # made inside: Dynamo models it
        x = x * weight if name.startswith("scale") else x + weight
    return x


def scenario_list():
    accumulate([1.0, 2.0], torch.randn(8, 8))


def scenario_zip_inside():
    apply_named(["scale", "shift"], [torch.ones(8), torch.zeros(8)], torch.randn(8, 8))


CALLS = {"accumulate": [([1.0, 2.0], torch.randn(8, 8)) for _ in range(3)],
         "apply_named": [(["scale"], [torch.ones(8)], torch.randn(8, 8)) for _ in range(3)]}
