from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule

from ._support import bindings, called_name, config_enabled

# The cells (`nn.LSTMCell`, `nn.GRUCell`) are traced; the sequence modules are not.
RNN_CLASSES = frozenset(
    prefix + name for prefix in ("torch.nn.", "torch.nn.modules.rnn.") for name in ("LSTM", "GRU", "RNN")
)


class RnnModule(Rule):
    """## What it does
    Finds calls to `nn.LSTM`, `nn.GRU` and `nn.RNN` modules inside a compiled region.

    ## Why is this bad?
    Dynamo refuses to trace the recurrent sequence modules (their cuDNN kernels carry packed
    weights and a flattened-weights cache it does not model). Called from a `forward`, the
    recurrent layer makes Dynamo give up on that whole function, which then runs eagerly; called
    from a plain function it breaks the graph at the call.

    ## How to fix
    Set `torch._dynamo.config.allow_rnn = True` to let Dynamo unroll it (check the speed), write
    the recurrence with `nn.LSTMCell`/`nn.GRUCell` in a loop (traced), or wrap the recurrent layer
    in a function decorated with `torch.compiler.disable` and compile the rest.

    ## When it is fine
    When `allow_rnn` is on (honoured in the same file or the entry point's), or the module runs
    outside the compiled region.

    ## Dynamo says
    `Attempted to wrap RNN, GRU, or LSTM` (GB0014).
    """

    code = "BL111"
    name = "rnn-module"
    stage = Stage.DYNAMO
    message = "`{module}` called in {region}: Dynamo does not trace recurrent modules and breaks the graph"
    help = "set torch._dynamo.config.allow_rnn = True, use nn.LSTMCell/nn.GRUCell in a loop, or keep the RNN out of the compiled code"
    dynamo_says = {"GB0014": "Attempted to wrap RNN, GRU, or LSTM"}
    bad = (
        "import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.rnn = nn.LSTM(8, 8)\n\n    def forward(self, x):\n"
        "        out, _ = self.rnn(x)\n        return out\n",
    )
    good = (
        "import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.cell = nn.LSTMCell(8, 8)\n\n    def forward(self, x):\n"
        "        h, c = self.cell(x)\n        return h\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        module = self._rnn_class(node.func)
        if module is not None and not config_enabled(self.ctx, "allow_rnn"):
            self.report(node, confidence=Confidence.CERTAIN, says="GB0014", module=module)

    def _rnn_class(self, callee: cst.BaseExpression) -> str | None:
        """`torch.nn.LSTM` when the callee holds an instance of one (and nothing else)."""
        if not isinstance(callee, (cst.Name, cst.Attribute)):
            return None
        names = {called_name(expr, module) for expr, module in bindings(self.ctx, callee)}
        if len(names) == 1:
            name = names.pop()
            return name if name in RNN_CLASSES else None
        return None
