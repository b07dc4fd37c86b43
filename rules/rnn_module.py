from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import FileContext, Rule

from ._support import bindings, called_name, config_enabled

# The cells (`nn.LSTMCell`, `nn.GRUCell`) are traced; the sequence modules are not.
RNN_CLASSES = frozenset(
    prefix + name for prefix in ("torch.nn.", "torch.nn.modules.rnn.") for name in ("LSTM", "GRU", "RNN")
)


class RnnModule(Rule):
    """## What it does
    Finds calls to `nn.LSTM`, `nn.GRU` and `nn.RNN` modules inside a compiled region, at the
    first place a method touches its own recurrent module: Dynamo refuses it there, also where
    that is an attribute read before the call (`x.new_zeros(self.lstm.num_layers, ...)` for the
    initial state).

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
    message = "`{module}` {use} in {region}: Dynamo does not trace recurrent modules and breaks the graph"
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

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        # (function, attribute) -> its recurrent class or None, judged once: `self.X` is read
        # everywhere in a module's code, and only the first use of an RNN is reported.
        self._judged: dict[tuple[object, str], str | None] = {}
        self._callees: set[int] = set()  # the `self.rnn` of each `self.rnn(...)` visited

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self._own_attribute(func) is not None:
            self._callees.add(id(func))
            self._first_use(func, node, "called")
            return
        module = self._rnn_class(func)
        if module is not None and not config_enabled(self.ctx, "allow_rnn"):
            self.report(node, confidence=Confidence.CERTAIN, says="GB0014", module=module, use="called")

    def visit_Attribute(self, node: cst.Attribute) -> None:
        # Dynamo refuses the module where the frame first touches it: `self.lstm.num_layers`
        # read to size the initial state, before the call (PyG's Set2Set).
        if id(node) not in self._callees and self._own_attribute(node) is not None:
            self._first_use(node, node, "used")

    def _own_attribute(self, expr: cst.BaseExpression) -> str | None:
        """`X` of `self.X` in a method."""
        fn = self.ctx.function
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and fn is not None \
                and expr.value.value == fn.self_name:
            return expr.attr.value
        return None

    def _first_use(self, attribute: cst.Attribute, at: cst.CSTNode, use: str) -> None:
        key = (self.ctx.function, attribute.attr.value)
        if key in self._judged:
            return
        module = self._judged[key] = self._rnn_class(attribute)
        if module is not None and not config_enabled(self.ctx, "allow_rnn"):
            self.report(at, confidence=Confidence.CERTAIN, says="GB0014", module=module, use=use)

    def _rnn_class(self, callee: cst.BaseExpression) -> str | None:
        """`torch.nn.LSTM` when the callee holds an instance of one (and nothing else)."""
        if not isinstance(callee, (cst.Name, cst.Attribute)):
            return None
        names = {called_name(expr, module) for expr, module in bindings(self.ctx, callee)}
        if len(names) == 1:
            name = names.pop()
            return name if name in RNN_CLASSES else None
        return None
