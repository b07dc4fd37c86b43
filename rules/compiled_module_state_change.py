from __future__ import annotations

from breaklint.finding import Stage

from ._recompiles import PredictedRecompile


class CompiledModuleStateChange(PredictedRecompile):
    """## What it does
    Finds code that changes a compiled module between its calls in a way its guards see:
    `.eval()` / `.train()` on a module whose forward (or a Dropout/BatchNorm in it) reads
    `training`, `.half()` / `.to(torch.float16)`, `requires_grad_()` on its parameters, an
    attribute its forward reads set to another value (`model.scale = 3.0`), a submodule replaced
    by one of another type (`model.act = nn.Tanh()`).

    ## Why is this bad?
    Dynamo guards the compiled `forward` on the module's `training` flags, its Python attributes,
    its submodules' types and its parameters' dtype and `requires_grad`. The change fails one of
    those guards and the next call compiles `forward` again. A float attribute is dynamic after
    its first change (later writes compile nothing: one finding, at the first), from the start
    under `torch.compile(model, dynamic=True)` (no finding), and never under `dynamic=False`
    (one compile per value written). An int, bool or str attribute is guarded per value whatever
    `dynamic=` says.

    ## How to fix
    Configure the module (dtype, frozen parameters, submodules, attributes) before its first
    compiled call; evaluate with the uncompiled module, or accept one compile per mode; keep
    changing numbers in tensors (`register_buffer`).

    ## When it is fine
    Train/eval switching costs one compile per mode, once: usually acceptable.

    ## Dynamo says
    `Recompiling function forward ... triggered by the following guard failure(s):
    self._modules['drop'].training == True` (or `self.scale == 2.0`,
    `___check_type_id(self._modules['act'], ...)`, `requires_grad mismatch`).
    """

    code = "BL212"
    name = "compiled-module-state-change"
    stage = Stage.GUARDS
    message = "compiled `{callee}`: {cause}, so it {count}"
    help = "configure the module before its first compiled call"
    dynamo_says = {"recompile": "`self._modules['drop'].training == True`"}
    bad = (
        "import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.drop = nn.Dropout(0.1)\n\n    def forward(self, x):\n"
        "        return self.drop(x)\n\nnet = Net()\nmodel = torch.compile(net)\n\ndef run(x):\n"
        "    model(x)\n    net.eval()\n    model(x)\n",
    )
    good = (
        "import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.drop = nn.Dropout(0.1)\n\n    def forward(self, x):\n"
        "        return self.drop(x)\n\nnet = Net()\nmodel = torch.compile(net)\n\ndef run(x):\n"
        "    net.eval()\n    model(x)\n    model(x)\n",
    )
