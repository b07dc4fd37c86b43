"""BL104 positives: each marked line must graph-break under real Dynamo."""
from typing import Tuple, Union

import torch


@torch.compile
def nonzero(x):
    return torch.nonzero(x) + 1  # expect: BL104


@torch.compile
def mask_index(x):
    return x[x > 0] * 2  # expect: BL104


@torch.compile
def unique_values(x: torch.Tensor):
    return x.round().unique() + 1  # expect: BL104


@torch.compile
def masked_select(x):
    return torch.masked_select(x, x > 0) + 1  # expect: BL104


@torch.compile
def where_one_arg(x):
    return torch.where(x > 0)[0] + 1  # expect: BL104


@torch.compile
def numpy_nonzero(x):
    import numpy as np

    return torch.from_numpy(np.nonzero(x.numpy() > 0)[0]) + 1  # expect: BL104


@torch.compile
def histogram_counts(x):
    return torch.bincount(x.abs().long().flatten()) + 1  # expect: BL104


@torch.compile
def expand_rows(x):
    repeats = torch.full((8,), 2)
    return torch.repeat_interleave(x, repeats, dim=0) * 2  # expect: BL104


@torch.compile
def labels_one_hot(x):
    labels = x.abs().long().flatten() % 4
    return torch.nn.functional.one_hot(labels) * 2  # expect: BL104


@torch.compile
def bump_positives(x):
    y = x.clone()
    y[y > 0] += 1  # expect: BL104
    return y


@torch._dynamo.nonstrict_trace
def _positives_outside_dynamo(x):
    return torch.nonzero(x).sum()  # expect: BL104


@torch.compile
def through_nonstrict_trace(x):
    return _positives_outside_dynamo(x) + 1  # expect: BL104


@torch.compile
def alignment_loss(x):
    log_probs = x.log_softmax(-1).unsqueeze(1)  # (time, batch=1, classes)
    targets = torch.tensor([[1, 2, 3]])
    lengths, target_lengths = torch.tensor([8]), torch.tensor([3])
    return torch.nn.functional.ctc_loss(log_probs, targets, lengths, target_lengths) + 1  # expect: BL104


@torch.compile
def least_squares(x):
    return torch.linalg.lstsq(x, x).solution  # expect: BL104


# What a bool tensor indexes is a tensor, also where the analysis cannot tell what it is: the
# value of a call through a table of functions, a method of a plain object.
DECODERS = {"linear": lambda deltas: deltas * 2.0}


class BoxCoder:
    def decode(self, deltas):
        return deltas * 2.0


@torch.compile
def foreground_boxes(deltas: torch.Tensor, labels: torch.Tensor):
    foreground = labels >= 0
    boxes = DECODERS["linear"](deltas)
    return boxes[foreground] + 1  # expect: BL104


@torch.compile
def decoded_foreground(deltas: torch.Tensor, labels: torch.Tensor, coder: BoxCoder):
    foreground = labels >= 0
    return coder.decode(deltas)[foreground] + 1  # expect: BL104


CALLS = {
    "foreground_boxes": [(torch.randn(8, 4), torch.randint(-1, 3, (8,))) for _ in range(3)],
    "decoded_foreground": [(torch.randn(8, 4), torch.randint(-1, 3, (8,)), BoxCoder()) for _ in range(3)],
}


class SparseEdges:  # stands in for torch_sparse.SparseTensor
    pass


def _edge_index_of(adjacency: Union[torch.Tensor, SparseEdges]) -> Tuple[torch.Tensor, torch.Tensor]:
    return adjacency.indices(), adjacency.values()


@torch.compile
def without_self_loops(x: torch.Tensor, edge_index: torch.Tensor):
    if edge_index.is_sparse:
        edge_index, _ = _edge_index_of(edge_index)
    keep = edge_index[0] != edge_index[1]
    return x[edge_index[:, keep][0]].sum(0)  # expect: BL104


CALLS["without_self_loops"] = [(torch.randn(10, 4), torch.randint(0, 10, (2, 30))) for _ in range(3)]


def load_balancing_loss(gate_logits: torch.Tensor | tuple[torch.Tensor] | None, num_experts: int = 4):
    # transformers' MoE auxiliary loss: the annotation allows a tuple, and `isinstance` tells
    # them apart (Dynamo answers it while tracing). Called with a tuple, the loop runs.
    if gate_logits is None or not isinstance(gate_logits, tuple):
        return 0
    total = 0.0
    for layer_gate in gate_logits:
        _, selected = torch.topk(layer_gate, 2, dim=-1)
        total = total + torch.bincount(selected.reshape(-1), minlength=num_experts).float().sum()  # expect: BL104
    return total


@torch.compile
def router_loss(x):
    return load_balancing_loss((x.softmax(-1), (x * 2).softmax(-1)))


CALLS["router_loss"] = [(torch.randn(8, 4),) for _ in range(3)]
