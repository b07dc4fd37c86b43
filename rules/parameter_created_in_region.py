from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule

# nn modules whose constructor makes Parameters (modules without weights construct fine).
PARAMETER_MODULES = frozenset(
    {"Linear", "Bilinear", "LazyLinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
     "ConvTranspose3d", "Embedding", "EmbeddingBag", "LayerNorm", "GroupNorm", "RMSNorm", "BatchNorm1d",
     "BatchNorm2d", "BatchNorm3d", "MultiheadAttention", "PReLU", "LSTM", "GRU", "RNN", "LSTMCell", "GRUCell",
     "RNNCell", "Transformer", "TransformerEncoderLayer", "TransformerDecoderLayer"}
)
PARAMETERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})


class ParameterCreatedInRegion(Rule):
    """## What it does
    Finds parameters created inside a compiled region: `nn.Parameter(...)`, and layers with
    weights constructed there (`nn.Linear(...)(x)`, `nn.LayerNorm(d)`, `nn.Conv2d(...)`).

    ## Why is this bad?
    A parameter is state that outlives the call; Dynamo does not trace its construction, so it
    ends the graph there. It is also a bug in most models: a layer built in `forward` gets new
    random weights every call and never trains.

    ## How to fix
    Create layers and parameters in `__init__` and call them in `forward`; for a weightless
    computation use the functional form (`F.linear(x, w)`, `F.layer_norm(x, shape)`).

    ## When it is fine
    Weightless modules (`nn.ReLU()`, `nn.Dropout()`) are traced; code outside the region. Torch
    before 2.9 traced the constructor (the rule is off for `target-torch` < 2.9), and 2.9+ still
    does with `torch._dynamo.config.graph_break_on_nn_param_ctor = False` (the layer still gets
    new weights on every call).

    ## Dynamo says
    `Attempted to use torch.nn.Parameter() constructor with Dynamo` (GB0264, from 2.9).
    """

    code = "BL114"
    name = "parameter-created-in-region"
    stage = Stage.DYNAMO
    message = "{what} in {region} creates parameters while tracing and forces a graph break"
    help = "create layers and parameters in __init__; use the functional form (F.linear, F.layer_norm) for weightless math"
    dynamo_says = {"GB0264": "Attempted to use `torch.nn.Parameter()` constructor with Dynamo"}
    # Before 2.9 Dynamo traced `nn.Parameter(...)` in place (`tracable_create_parameter`); 2.9 added
    # `torch._dynamo.config.graph_break_on_nn_param_ctor = True` and GB0264 (pytorch#157452).
    torch_versions = ("2.9", None)
    bad = ("import torch\nfrom torch import nn\n\n@torch.compile\ndef f(x):\n    return nn.Linear(8, 8)(x)\n",)
    good = ("import torch\nfrom torch import nn\n\n@torch.compile\ndef f(x):\n    return nn.ReLU()(x)\n",)

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func) or ""
        if resolved in PARAMETERS:
            self.report(node, confidence=Confidence.CERTAIN, says="GB0264", what="`nn.Parameter(...)`")
            return
        module, _, name = resolved.rpartition(".")
        if module in ("torch.nn", "torch.nn.modules") and name in PARAMETER_MODULES:
            self.report(node, confidence=Confidence.CERTAIN, says="GB0264", what=f"`nn.{name}(...)`")
